"""sort-int (see sort_int.dfs): n pseudo-random integers in a list, sorted with
list.sort, then checksummed."""
import sys

from wordgen import next_random


def main(n):
    xs = []
    for _ in range(n):
        xs.append(next_random())
    xs.sort()
    h = 0
    for x in xs:
        h = (h * 31 + x) % 1000000007
    print("%d values, checksum %d" % (n, h))
    if n > 0:
        print("first %d, middle %d, last %d" % (xs[0], xs[n // 2], xs[n - 1]))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
