"""sort-string (see sort_string.dfs): n short strings in a list, sorted with list.sort
(code point order, which is byte order for this ASCII text), then counted and
checksummed."""
import sys

from wordgen import next_random, spell


def main(n):
    words = []
    for _ in range(n):
        words.append(spell(next_random()))
    words.sort()
    distinct = 0
    h = 0
    for i in range(n):
        if i == 0 or words[i] != words[i - 1]:
            distinct += 1
        h = (h * 31 + len(words[i])) % 1000000007
    print("%d strings, %d distinct, checksum %d" % (n, distinct, h))
    if n > 0:
        print("first %s, middle %s, last %s" % (words[0], words[n // 2], words[n - 1]))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
