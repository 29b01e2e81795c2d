/**
 * Seeded randomness for the simulated chain. sfc32 is small, fast and has a
 * 128-bit state, so a run is fully determined by its seed (no Date.now, no
 * Math.random). Stateless `mix` derives per-entity bytes (a user's address,
 * an exchange's deposit address) without remembering anything.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    this.a = mix32(seed, 0x9e3779b9, stream);
    this.b = mix32(seed, 0x243f6a88, stream);
    this.c = mix32(seed, 0xb7e15162, stream);
    this.d = mix32(seed, 0x85a308d3, stream);
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Index drawn with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  normal(): number {
    const u = 1 - this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** Log-normal with the given median and log-space sigma: heavy right tail. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Poisson count (Knuth; the means used here are small). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }

  fill(out: Uint8Array, offset = 0, length = out.length - offset): Uint8Array {
    for (let i = 0; i < length; i += 4) {
      const v = this.u32();
      for (let k = 0; k < 4 && i + k < length; k++) out[offset + i + k] = (v >>> (8 * k)) & 0xff;
    }
    return out;
  }

  bytes(length: number): Uint8Array {
    return this.fill(new Uint8Array(length));
  }
}

/** murmur3's finalizer over a few keys: a stateless 32-bit hash. */
export function mix32(...keys: number[]): number {
  let h = 0x811c9dc5;
  for (const key of keys) {
    h = Math.imul(h ^ (key | 0), 0x01000193);
    h ^= (key / 4294967296) | 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** `length` bytes determined by the keys alone (addresses of users and exchanges). */
export function mixBytes(length: number, ...keys: number[]): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 4) {
    const v = mix32(...keys, i);
    for (let k = 0; k < 4 && i + k < length; k++) out[i + k] = (v >>> (8 * k)) & 0xff;
  }
  return out;
}
