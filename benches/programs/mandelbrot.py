"""mandelbrot: the Benchmarks Game's Mandelbrot set bitmap (scalar float loops); its
size and a checksum of its bytes are printed (see mandelbrot.c)."""
import sys


def mandelbrot(n):
    w = h = n
    total = nbytes = bits = bit_num = 0
    for y in range(h):
        ci = 2.0 * y / h - 1.0
        for x in range(w):
            cr = 2.0 * x / w - 1.5
            zr = zi = tr = ti = 0.0
            i = 0
            while i < 50 and tr + ti <= 4.0:
                zi = 2.0 * zr * zi + ci
                zr = tr - ti + cr
                tr = zr * zr
                ti = zi * zi
                i += 1
            bits = bits * 2
            if tr + ti <= 4.0:
                bits += 1
            bit_num += 1
            if bit_num == 8 or x == w - 1:
                while bit_num < 8:
                    bits = bits * 2
                    bit_num += 1
                total = (total * 31 + bits) % 1000000007
                nbytes += 1
                bits = bit_num = 0
    return w, h, nbytes, total


n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
print("P4 %d %d\n%d bytes, checksum %d" % mandelbrot(n))
