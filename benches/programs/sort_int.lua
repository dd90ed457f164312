-- sort-int (see sort_int.dfs): n pseudo-random integers in a table, sorted with
-- table.sort, then checksummed.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local next_random = wordgen.next_random

local n = tonumber(arg and arg[1]) or 1000
local xs = {}
for i = 1, n do
  xs[i] = next_random()
end
table.sort(xs)
local h = 0
for i = 1, n do
  h = (h * 31 + xs[i]) % 1000000007
end
print(string.format("%d values, checksum %d", n, h))
if n > 0 then
  print(string.format("first %d, middle %d, last %d", xs[1], xs[math.floor(n / 2) + 1], xs[n]))
end
