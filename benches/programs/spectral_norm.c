/* spectral-norm: the Benchmarks Game's spectral norm of an infinite matrix (floats,
 * nested loops over lists). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double eval_a(long i, long j) {
    return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1);
}

static void times_u(long n, const double *u, double *au) {
    for (long i = 0; i < n; i++) {
        double sum = 0.0;
        for (long j = 0; j < n; j++) {
            sum += eval_a(i, j) * u[j];
        }
        au[i] = sum;
    }
}

static void times_transposed_u(long n, const double *u, double *au) {
    for (long i = 0; i < n; i++) {
        double sum = 0.0;
        for (long j = 0; j < n; j++) {
            sum += eval_a(j, i) * u[j];
        }
        au[i] = sum;
    }
}

static void times_ata_u(long n, const double *u, double *out, double *scratch) {
    times_u(n, u, scratch);
    times_transposed_u(n, scratch, out);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100;
    double *u = malloc(sizeof(double) * (size_t)n);
    double *v = malloc(sizeof(double) * (size_t)n);
    double *scratch = malloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++) {
        u[i] = 1.0;
        v[i] = 0.0;
    }
    for (int i = 0; i < 10; i++) {
        times_ata_u(n, u, v, scratch);
        times_ata_u(n, v, u, scratch);
    }
    double vbv = 0.0, vv = 0.0;
    for (long i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%.9f\n", sqrt(vbv / vv));
    free(u);
    free(v);
    free(scratch);
    return 0;
}
