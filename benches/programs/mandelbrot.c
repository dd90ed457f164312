/* mandelbrot: the Benchmarks Game's Mandelbrot set bitmap (scalar float loops). The
 * bitmap's bytes are not printed (a program's output here is text): its size and a
 * checksum of its bytes are, h = (h * 31 + byte) mod 1000000007, which every peer can
 * compute exactly. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 200;
    long w = n, h = n;
    long sum = 0, bytes = 0;
    long bits = 0, bit_num = 0;
    for (long y = 0; y < h; y++) {
        double ci = 2.0 * (double)y / (double)h - 1.0;
        for (long x = 0; x < w; x++) {
            double cr = 2.0 * (double)x / (double)w - 1.5;
            double zr = 0.0, zi = 0.0, tr = 0.0, ti = 0.0;
            long i = 0;
            while (i < 50 && tr + ti <= 4.0) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
                i++;
            }
            bits = bits * 2;
            if (tr + ti <= 4.0) {
                bits = bits + 1;
            }
            bit_num++;
            if (bit_num == 8 || x == w - 1) {
                while (bit_num < 8) {
                    bits = bits * 2;
                    bit_num++;
                }
                sum = (sum * 31 + bits) % 1000000007;
                bytes++;
                bits = 0;
                bit_num = 0;
            }
        }
    }
    printf("P4 %ld %ld\n%ld bytes, checksum %ld\n", w, h, bytes, sum);
    return 0;
}
