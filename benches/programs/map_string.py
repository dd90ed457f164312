"""map-string (see map_string.dfs): n pseudo-random words counted in a dict; the most
frequent is the first in word order among the most frequent."""
import sys

from wordgen import next_random, spell


def main(n):
    counts = {}
    for _ in range(n):
        word = spell(next_random() % n)
        counts[word] = counts.get(word, 0) + 1
    best, best_word = 0, ""
    for word in sorted(counts):
        if counts[word] > best:
            best, best_word = counts[word], word
    print("%d words, %d distinct" % (n, len(counts)))
    if n > 0:
        print("most frequent: %s (%d)" % (best_word, best))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
