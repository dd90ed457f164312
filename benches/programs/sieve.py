"""sieve: the primes up to n by Eratosthenes' sieve over a list of n + 1 flags."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
flags = [True] * (n + 1)
i = 2
while i * i <= n:
    if flags[i]:
        j = i * i
        while j <= n:
            flags[j] = False
            j += i
    i += 1
count = 0
k = 2
while k <= n:
    if flags[k]:
        count += 1
    k += 1
print(count)
