/* sieve: the primes up to n by Eratosthenes' sieve over a list of n + 1 flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    char *flags = malloc((size_t)n + 1);
    memset(flags, 1, (size_t)n + 1);
    long i = 2;
    while (i * i <= n) {
        if (flags[i]) {
            for (long j = i * i; j <= n; j += i) {
                flags[j] = 0;
            }
        }
        i++;
    }
    long count = 0;
    for (long k = 2; k <= n; k++) {
        count += flags[k];
    }
    printf("%ld\n", count);
    free(flags);
    return 0;
}
