/* wordgen: the pseudo-random words of the words and wordfreq benchmarks, included by
 * both. A Park-Miller generator (seed 42), whose products stay below 2^53 so every peer
 * computes them exactly, picks a word's number of syllables (1 + r % 3) and each of
 * them (SYLLABLES[r % 12]). */
#include <stdint.h>

static const char *SYLLABLES[12] = {"ka", "lo", "mi", "ne", "ru", "ta",
                                    "vo", "shi", "en", "ya", "po", "qu"};

static int64_t seed = 42;

static int64_t next_random(void) {
    seed = seed * 16807 % 2147483647;
    return seed;
}
