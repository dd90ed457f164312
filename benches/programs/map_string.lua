-- map-string (see map_string.dfs): n pseudo-random words counted in a table; the most
-- frequent is the first in word order among the most frequent.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local next_random, spell = wordgen.next_random, wordgen.spell

local n = tonumber(arg and arg[1]) or 1000
local counts, keys = {}, {}
for _ = 1, n do
  local word = spell(next_random() % n)
  local c = counts[word]
  if c == nil then
    keys[#keys + 1] = word
    c = 0
  end
  counts[word] = c + 1
end
table.sort(keys)
local best, best_word = 0, ""
for i = 1, #keys do
  if counts[keys[i]] > best then
    best, best_word = counts[keys[i]], keys[i]
  end
end
print(string.format("%d words, %d distinct", n, #keys))
if n > 0 then
  print(string.format("most frequent: %s (%d)", best_word, best))
end
