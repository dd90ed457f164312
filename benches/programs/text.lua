-- text (see text.dfs): n lines built by concatenation, joined with table.concat, split
-- back into lines and words (with string.find, keeping empty pieces as the other
-- versions do), counted.
local wordgen = dofile((arg[0]:match("^(.*/)") or "") .. "wordgen.lua")
local next_random, spell = wordgen.next_random, wordgen.spell

-- The pieces of s between the matches of sep.
local function split(s, sep)
  local parts, start = {}, 1
  while true do
    local at = string.find(s, sep, start, true)
    if at == nil then
      parts[#parts + 1] = string.sub(s, start)
      return parts
    end
    parts[#parts + 1] = string.sub(s, start, at - 1)
    start = at + #sep
  end
end

local n = tonumber(arg and arg[1]) or 1000
local lines = {}
for i = 1, n do
  local words = 1 + next_random() % 8
  local line = spell(next_random() % 1000)
  for _ = 2, words do
    line = line .. " " .. spell(next_random() % 1000)
  end
  lines[i] = line
end
local text = table.concat(lines, "\n")
local line_count, word_count, word_bytes = 0, 0, 0
for _, line in ipairs(split(text, "\n")) do
  line_count = line_count + 1
  for _, word in ipairs(split(line, " ")) do
    word_count = word_count + 1
    word_bytes = word_bytes + #word
  end
end
print(string.format("%d lines, %d words, %d bytes of words, %d bytes", line_count, word_count, word_bytes, #text))
