-- wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
-- wordgen.h), loaded by both with dofile.
local SYLLABLES = { "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu" }
local seed = 42

local function next_random()
  seed = seed * 16807 % 2147483647
  return seed
end

return { SYLLABLES = SYLLABLES, next_random = next_random }
