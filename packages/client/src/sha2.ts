/**
 * SHA-2's round constants and initial values, computed as FIPS 180-4 defines
 * them (the first bits of the fractional parts of the cube and square roots
 * of the first primes) instead of shipped as hex. SHA-512 takes 64
 * bits of each; SHA-256 the first 32 of the same ones.
 */

export const MASK64 = (1n << 64n) - 1n;

/** ⌊n^(1/k)⌋ by Newton's method from above. */
function root(n: bigint, k: bigint): bigint {
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / Number(k)));
  for (;;) {
    const next = ((k - 1n) * x + n / x ** (k - 1n)) / k;
    if (next >= x) return x;
    x = next;
  }
}

const PRIMES: bigint[] = [];
for (let n = 2n; PRIMES.length < 80; n++) if (PRIMES.every((p) => n % p !== 0n)) PRIMES.push(n);

/** SHA-512's 80 round constants (SHA-256's are the high halves of the first 64). */
export const SHA512_K: readonly bigint[] = PRIMES.map((p) => root(p << 192n, 3n) & MASK64);
/** SHA-512's initial hash value (SHA-256's is its high halves). */
export const SHA512_IV: readonly bigint[] = PRIMES.slice(0, 8).map((p) => root(p << 128n, 2n) & MASK64);

/** The high 32 bits of each, as SHA-256's Int32 words. */
export const high32 = (words: readonly bigint[]): Int32Array => Int32Array.from(words, (w) => Number(w >> 32n));
