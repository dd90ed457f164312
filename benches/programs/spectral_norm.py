"""spectral-norm: the Benchmarks Game's spectral norm of an infinite matrix (floats,
nested loops over lists)."""
import math
import sys


def eval_a(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)


def times_u(n, u, au):
    for i in range(n):
        total = 0.0
        for j in range(n):
            total += eval_a(i, j) * u[j]
        au[i] = total


def times_transposed_u(n, u, au):
    for i in range(n):
        total = 0.0
        for j in range(n):
            total += eval_a(j, i) * u[j]
        au[i] = total


def times_ata_u(n, u, out, scratch):
    times_u(n, u, scratch)
    times_transposed_u(n, scratch, out)


n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
u = [1.0] * n
v = [0.0] * n
scratch = [0.0] * n
for _ in range(10):
    times_ata_u(n, u, v, scratch)
    times_ata_u(n, v, u, scratch)
vbv = vv = 0.0
for i in range(n):
    vbv += u[i] * v[i]
    vv += v[i] * v[i]
print("%.9f" % math.sqrt(vbv / vv))
