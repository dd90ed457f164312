"""wordfreq: a map workload (see wordfreq.c): the pseudo-random words of `words`,
counted in a dict; the most frequent is the first in word order among the most
frequent."""
import sys

from wordgen import SYLLABLES, next_random


def main(lines):
    counts = {}
    total = 0
    for _ in range(lines):
        for _ in range(8):
            word = ""
            for _ in range(1 + next_random() % 3):
                word = word + SYLLABLES[next_random() % 12]
            counts[word] = counts.get(word, 0) + 1
            total += 1
    best, best_word = 0, ""
    for word in sorted(counts):
        if counts[word] > best:
            best, best_word = counts[word], word
    print("%d words, %d distinct" % (total, len(counts)))
    if total > 0:
        print("most frequent: %s (%d)" % (best_word, best))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
