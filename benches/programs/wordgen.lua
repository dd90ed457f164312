-- wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
-- wordgen.h), loaded by both with dofile, and the generator and spell of the
-- collection programs.
local SYLLABLES = { "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu" }
local seed = 42

local function next_random()
  seed = seed * 16807 % 2147483647
  return seed
end

-- The word for r >= 0 (see spell in wordgen.dfm): its base-12 digits, least significant
-- first, each written as its syllable.
local function spell(r)
  local word = SYLLABLES[r % 12 + 1]
  local rest = math.floor(r / 12)
  while rest > 0 do
    word = word .. SYLLABLES[rest % 12 + 1]
    rest = math.floor(rest / 12)
  end
  return word
end

return { SYLLABLES = SYLLABLES, next_random = next_random, spell = spell }
