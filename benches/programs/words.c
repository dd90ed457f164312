/* words: a string and list workload. Lines of pseudo-random words are built by
 * concatenation, split into words by scanning their characters, and the words sorted;
 * then the number of words, of distinct words, and the most frequent word are printed.
 * The words come from wordgen.h's Park-Miller generator (seed 42), whose products stay
 * below 2^53 so every peer computes them exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wordgen.h"

static int compare(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    long lines = argc > 1 ? atol(argv[1]) : 1000;
    size_t cap = 1024, count = 0;
    char **words = malloc(cap * sizeof(char *));
    char line[256];
    for (long l = 0; l < lines; l++) {
        size_t len = 0;
        for (int w = 0; w < 8; w++) {
            if (w > 0) {
                line[len++] = ' ';
            }
            long syllables = 1 + next_random() % 3;
            for (long s = 0; s < syllables; s++) {
                const char *syl = SYLLABLES[next_random() % 12];
                size_t n = strlen(syl);
                memcpy(line + len, syl, n);
                len += n;
            }
        }
        size_t start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i == len || line[i] == ' ') {
                if (i > start) {
                    if (count == cap) {
                        cap *= 2;
                        words = realloc(words, cap * sizeof(char *));
                    }
                    char *word = malloc(i - start + 1);
                    memcpy(word, line + start, i - start);
                    word[i - start] = 0;
                    words[count++] = word;
                }
                start = i + 1;
            }
        }
    }
    qsort(words, count, sizeof(char *), compare);
    size_t distinct = 0, best = 0, best_at = 0, run = 0;
    for (size_t i = 0; i < count; i++) {
        if (i == 0 || strcmp(words[i], words[i - 1]) != 0) {
            distinct++;
            run = 0;
        }
        run++;
        if (run > best) {
            best = run;
            best_at = i;
        }
    }
    printf("%zu words, %zu distinct\n", count, distinct);
    if (count > 0) {
        printf("most frequent: %s (%zu)\n", words[best_at], best);
    }
    for (size_t i = 0; i < count; i++) {
        free(words[i]);
    }
    free(words);
    return 0;
}
