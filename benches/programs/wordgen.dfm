# wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
# wordgen.h), imported by both, and the generator and `spell` of the collection
# programs (map-string, sort-int, sort-string, records, text; wordgen.rs for Rust).

# The syllables a word is made of.
fun syllables(): [string]
  ret ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu"]
end fun

# The next number of the Park-Miller generator whose state is `seed` (start: 42).
fun next_random(mut seed: i64): i64
  set seed = seed * 16807 % 2147483647
  ret seed
end fun

# The word for `r` >= 0 (map-string, sort-string, text): its digits in base 12, least
# significant first, each written as its syllable (0 is "ka"). No two syllables start
# with the same letter, so two numbers are never the same word.
fun spell(ref syllables: [string], r: i64): string
  var word = syllables[(r % 12) as index]
  var rest = r / 12
  loop while rest > 0
    set word = word ++ syllables[(rest % 12) as index]
    set rest = rest / 12
  end loop
  ret word
end fun
