/* wordfreq: a map workload. The pseudo-random words of `words` (the same generator and
 * sequence) counted in an ordered map: a sorted array of (word, count) searched by
 * bisection, as datalove's map is kept; the most frequent is the first in word order
 * among the most frequent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordgen.h"

typedef struct {
    char *word;
    int64_t count;
} entry_t;

static entry_t *entries;
static size_t len, cap;

static void count(const char *word) {
    size_t lo = 0, hi = len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(entries[mid].word, word);
        if (c == 0) {
            entries[mid].count++;
            return;
        }
        if (c < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (len == cap) {
        cap = cap ? cap * 2 : 64;
        entries = realloc(entries, cap * sizeof *entries);
    }
    memmove(entries + lo + 1, entries + lo, (len - lo) * sizeof *entries);
    entries[lo].word = strdup(word);
    entries[lo].count = 1;
    len++;
}

int main(int argc, char **argv) {
    int64_t lines = argc > 1 ? atoll(argv[1]) : 1000;
    int64_t total = 0;
    char word[16];
    for (int64_t l = 0; l < lines; l++) {
        for (int w = 0; w < 8; w++) {
            int64_t n = 1 + next_random() % 3;
            word[0] = '\0';
            for (int64_t s = 0; s < n; s++) {
                strcat(word, SYLLABLES[next_random() % 12]);
            }
            count(word);
            total++;
        }
    }
    int64_t best = 0;
    const char *best_word = "";
    for (size_t i = 0; i < len; i++) {
        if (entries[i].count > best) {
            best = entries[i].count;
            best_word = entries[i].word;
        }
    }
    printf("%lld words, %zu distinct\n", (long long)total, len);
    if (total > 0) {
        printf("most frequent: %s (%lld)\n", best_word, (long long)best);
    }
    for (size_t i = 0; i < len; i++) {
        free(entries[i].word);
    }
    free(entries);
    return 0;
}
