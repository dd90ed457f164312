"""fannkuch-redux: the Benchmarks Game's pancake flips over every permutation of n
(small integer lists, indexing, swaps)."""
import sys


def fannkuch(n):
    perm = [0] * n
    perm1 = list(range(n))
    count = [0] * n
    max_flips = perm_count = checksum = 0
    r = n
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        for i in range(n):
            perm[i] = perm1[i]
        flips = 0
        k = perm[0]
        while k != 0:
            half = (k + 1) // 2
            for i in range(half):
                t = perm[i]
                perm[i] = perm[k - i]
                perm[k - i] = t
            flips += 1
            k = perm[0]
        if flips > max_flips:
            max_flips = flips
        checksum += flips if perm_count % 2 == 0 else -flips
        while True:
            if r == n:
                return checksum, max_flips
            perm0 = perm1[0]
            for i in range(r):
                perm1[i] = perm1[i + 1]
            perm1[r] = perm0
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1
        perm_count += 1


n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
checksum, max_flips = fannkuch(n)
print("%d\nPfannkuchen(%d) = %d" % (checksum, n, max_flips))
