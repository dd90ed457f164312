-- words: a string and list workload (see words.c): lines of pseudo-random words built
-- by concatenation, split by scanning their characters, sorted, counted.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local SYLLABLES, next_random = wordgen.SYLLABLES, wordgen.next_random

local lines = tonumber(arg and arg[1]) or 1000
local words = {}
for _ = 1, lines do
  local line = ""
  for w = 0, 7 do
    if w > 0 then
      line = line .. " "
    end
    local syllables = 1 + next_random() % 3
    for _ = 1, syllables do
      line = line .. SYLLABLES[next_random() % 12 + 1]
    end
  end
  local start = 1
  local len = #line
  for i = 1, len + 1 do
    if i == len + 1 or line:sub(i, i) == " " then
      if i > start then
        words[#words + 1] = line:sub(start, i - 1)
      end
      start = i + 1
    end
  end
end
table.sort(words)
local distinct, best, best_at, run = 0, 0, 0, 0
for i = 1, #words do
  if i == 1 or words[i] ~= words[i - 1] then
    distinct = distinct + 1
    run = 0
  end
  run = run + 1
  if run > best then
    best = run
    best_at = i
  end
end
print(string.format("%d words, %d distinct", #words, distinct))
if #words > 0 then
  print(string.format("most frequent: %s (%d)", words[best_at], best))
end
