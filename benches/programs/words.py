"""words: a string and list workload (see words.c): lines of pseudo-random words built
by concatenation, split by scanning their characters, sorted, counted."""
import sys

from wordgen import SYLLABLES, next_random


def main(lines):
    words = []
    for _ in range(lines):
        line = ""
        for w in range(8):
            if w > 0:
                line = line + " "
            for _ in range(1 + next_random() % 3):
                line = line + SYLLABLES[next_random() % 12]
        start = 0
        length = len(line)
        for i in range(length + 1):
            if i == length or line[i] == " ":
                if i > start:
                    words.append(line[start:i])
                start = i + 1
    words.sort()
    distinct = best = best_at = run = 0
    for i in range(len(words)):
        if i == 0 or words[i] != words[i - 1]:
            distinct += 1
            run = 0
        run += 1
        if run > best:
            best = run
            best_at = i
    print("%d words, %d distinct" % (len(words), distinct))
    if words:
        print("most frequent: %s (%d)" % (words[best_at], best))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
