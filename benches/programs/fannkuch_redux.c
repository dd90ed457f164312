/* fannkuch-redux: the Benchmarks Game's pancake flips over every permutation of n
 * (small integer lists, indexing, swaps). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 7;
    int *perm = malloc(sizeof(int) * (size_t)n);
    int *perm1 = malloc(sizeof(int) * (size_t)n);
    int *count = malloc(sizeof(int) * (size_t)n);
    int max_flips = 0, perm_count = 0, checksum = 0;
    for (int i = 0; i < n; i++) {
        perm1[i] = i;
        count[i] = 0;
    }
    int r = n;
    for (;;) {
        while (r != 1) {
            count[r - 1] = r;
            r--;
        }
        for (int i = 0; i < n; i++) {
            perm[i] = perm1[i];
        }
        int flips = 0;
        int k = perm[0];
        while (k != 0) {
            int half = (k + 1) / 2;
            for (int i = 0; i < half; i++) {
                int t = perm[i];
                perm[i] = perm[k - i];
                perm[k - i] = t;
            }
            flips++;
            k = perm[0];
        }
        if (flips > max_flips) {
            max_flips = flips;
        }
        checksum += perm_count % 2 == 0 ? flips : -flips;
        for (;;) {
            if (r == n) {
                printf("%d\nPfannkuchen(%d) = %d\n", checksum, n, max_flips);
                free(perm);
                free(perm1);
                free(count);
                return 0;
            }
            int perm0 = perm1[0];
            for (int i = 0; i < r; i++) {
                perm1[i] = perm1[i + 1];
            }
            perm1[r] = perm0;
            count[r]--;
            if (count[r] > 0) {
                break;
            }
            r++;
        }
        perm_count++;
    }
}
