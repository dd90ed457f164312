"""wordgen: the pseudo-random words of the words and wordfreq benchmarks (see
wordgen.h), imported by both, and the generator and spell of the collection
programs."""

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "ya", "po", "qu"]
seed = 42


def next_random():
    global seed
    seed = seed * 16807 % 2147483647
    return seed


def spell(r):
    """The word for r >= 0 (see spell in wordgen.dfm): its base-12 digits, least
    significant first, each written as its syllable."""
    word = SYLLABLES[r % 12]
    r //= 12
    while r > 0:
        word += SYLLABLES[r % 12]
        r //= 12
    return word
