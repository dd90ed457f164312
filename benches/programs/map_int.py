"""map-int (see map_int.dfs): n distinct keys inserted into a dict in a scattered
order, then each looked up once and the values found summed."""
import sys


def main(n):
    m = {}
    for i in range(n):
        m[i * 7919 % n] = i
    total = 0
    for k in range(n):
        v = m.get(k)
        if v is not None:
            total += v
    print("%d entries, sum %d" % (len(m), total))


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
