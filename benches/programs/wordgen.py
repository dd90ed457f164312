"""wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
wordgen.h), imported by both."""

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu"]
seed = 42


def next_random():
    global seed
    seed = seed * 16807 % 2147483647
    return seed
