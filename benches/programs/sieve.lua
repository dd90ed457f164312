-- sieve: the primes up to n by Eratosthenes' sieve over a list of n + 1 flags.
local n = tonumber(arg and arg[1]) or 1000000
local flags = {}
for k = 0, n do
  flags[k] = true
end
local i = 2
while i * i <= n do
  if flags[i] then
    for j = i * i, n, i do
      flags[j] = false
    end
  end
  i = i + 1
end
local count = 0
for k = 2, n do
  if flags[k] then
    count = count + 1
  end
end
print(string.format("%d", count))
