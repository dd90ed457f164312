-- sort-string (see sort_string.dfs): n short strings in a table, sorted with
-- table.sort (byte order, in the C locale Lua starts in), then counted and checksummed.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local next_random, spell = wordgen.next_random, wordgen.spell

local n = tonumber(arg and arg[1]) or 1000
local words = {}
for i = 1, n do
  words[i] = spell(next_random())
end
table.sort(words)
local distinct, h = 0, 0
for i = 1, n do
  if i == 1 or words[i] ~= words[i - 1] then
    distinct = distinct + 1
  end
  h = (h * 31 + #words[i]) % 1000000007
end
print(string.format("%d strings, %d distinct, checksum %d", n, distinct, h))
if n > 0 then
  print(string.format("first %s, middle %s, last %s", words[1], words[math.floor(n / 2) + 1], words[n]))
end
