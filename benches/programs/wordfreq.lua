-- wordfreq: a map workload (see wordfreq.c): the pseudo-random words of `words`,
-- counted in a table; the most frequent is the first in word order among the most
-- frequent.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local SYLLABLES, next_random = wordgen.SYLLABLES, wordgen.next_random

local lines = tonumber(arg and arg[1]) or 1000
local counts, keys = {}, {}
local total = 0
for _ = 1, lines do
  for _ = 1, 8 do
    local word = ""
    for _ = 1, 1 + next_random() % 3 do
      word = word .. SYLLABLES[next_random() % 12 + 1]
    end
    local n = counts[word]
    if n == nil then
      keys[#keys + 1] = word
      n = 0
    end
    counts[word] = n + 1
    total = total + 1
  end
end
table.sort(keys)
local best, best_word = 0, ""
for i = 1, #keys do
  if counts[keys[i]] > best then
    best, best_word = counts[keys[i]], keys[i]
  end
end
print(string.format("%d words, %d distinct", total, #keys))
if total > 0 then
  print(string.format("most frequent: %s (%d)", best_word, best))
end
