# words.dfm: a module that requires the Rust rider and exports functions over it.
require rider wordtools
import wordtools.count_words
import wordtools.nth_word

fun word_count(ref text: string): u64
  ret count_words(ref text)
end fun

fun word(ref text: string, n: index): string
  ret nth_word(ref text, n)
end fun
