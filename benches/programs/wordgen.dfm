# wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
# wordgen.h), imported by both.

# The syllables a word is made of.
fun syllables(): [string]
  ret ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu"]
end fun

# The next number of the Park-Miller generator whose state is `seed` (start: 42).
fun next_random(mut seed: i64): i64
  set seed = seed * 16807 % 2147483647
  ret seed
end fun
