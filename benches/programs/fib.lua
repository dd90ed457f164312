-- fib: the naive doubly recursive Fibonacci (calls and integer arithmetic).
local function fib(n)
  if n < 2 then
    return n
  end
  return fib(n - 1) + fib(n - 2)
end

local n = tonumber(arg and arg[1]) or 30
print(string.format("%d", fib(n)))
