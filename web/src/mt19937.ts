// Python's `random.Random(seed_bytes).shuffle`, exactly: the server shuffles every deck with it
// (engine/core/shuffle.py), so the page must give the same permutation to check a deal.
// CPython's _randommodule.c (MT19937, init_by_array) and random.py (seed version 2 of bytes,
// _randbelow_with_getrandbits, shuffle). Test vectors from Python: web/test/.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;

/** The Mersenne Twister state of a CPython `random.Random`. */
export class MersenneTwister {
  private mt = new Uint32Array(N);
  private mti = N + 1;

  /** Seeded with the 32-bit words of a non-negative integer, least significant first
   * (CPython's `random_seed` of an int: `init_by_array`). */
  constructor(key: Uint32Array) {
    this.initByArray(key.length ? key : new Uint32Array(1));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: Uint32Array): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = UPPER;
  }

  /** The next 32 random bits (CPython's genrand_uint32). */
  uint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1] & UPPER) | (mt[0] & LOWER);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 1 <= k <= 32 (all a shuffle of fewer than 2^32 items needs). */
  getrandbits(k: number): number {
    if (k < 1 || k > 32) throw new RangeError(`getrandbits(${k}): only 1..32 bits are ported`);
    return this.uint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: uniform in [0, n), by rejection of k-bit draws (k = n.bit_length()). */
  randbelow(n: number): number {
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `shuffle(x)` in place: Fisher-Yates from the end, as random.py does it. */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j], x[i]];
    }
  }
}

/** The key words CPython seeds with for `random.Random(seed)` when `seed` is bytes (version 2):
 * the integer `int.from_bytes(seed + sha512(seed), "big")`, as 32-bit words, least significant
 * first, without leading zero words. `sha512` is the digest of `seed`, computed by the caller. */
export function keyOfBytes(seed: Uint8Array, sha512: Uint8Array): Uint32Array {
  const all = new Uint8Array(seed.length + sha512.length);
  all.set(seed);
  all.set(sha512, seed.length);
  let start = 0;
  while (start < all.length && all[start] === 0) start++; // the integer's leading zero bytes
  const bytes = all.subarray(start);
  const words = new Uint32Array(Math.max(1, Math.ceil(bytes.length / 4)));
  for (let w = 0; w < words.length; w++) {
    let v = 0;
    for (let b = 3; b >= 0; b--) {
      const at = bytes.length - 1 - (w * 4 + b); // byte b (little-endian) of word w
      v = v * 256 + (at >= 0 ? bytes[at] : 0);
    }
    words[w] = v >>> 0;
  }
  return words;
}
