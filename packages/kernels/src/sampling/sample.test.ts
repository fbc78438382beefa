import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { sampleRef } from './sample.ref.ts';
import { type SampleOptions, type SampleShape, sample } from './sample.ts';

const rng = new SeededRandom(4242);
const randomU32 = () => Math.floor(rng.next() * 2 ** 32) >>> 0;

/** B copies of one row of logits: B independent draws from one distribution in a single dispatch. */
function repeatRow(row: number[], B: number): Float32Array {
  const out = new Float32Array(B * row.length);
  for (let b = 0; b < B; b++) out.set(row, b * row.length);
  return out;
}

function softmax(row: number[], tau: number): number[] {
  const max = Math.max(...row);
  const e = row.map((x) => Math.exp((x - max) / tau));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function chiSquare(tokens: Uint32Array, probs: number[]): number {
  const counts = new Array(probs.length).fill(0);
  for (const t of tokens) counts[t]++;
  return probs.reduce((s, pr, j) => s + (counts[j] - tokens.length * pr) ** 2 / (tokens.length * pr), 0);
}

/** GPU against the float64 reference on the same uniforms; returns how many rows differ. */
async function compareWithReference(logits: Float32Array, shape: SampleShape, options: SampleOptions, counters: Uint32Array) {
  const gpu = await testGpu();
  const got = await sample(gpu, logits, shape, options, counters);
  const want = sampleRef(logits, shape, options, counters);
  let differing = 0;
  for (let b = 0; b < shape.B; b++) {
    const ref = want[b];
    if (got.tokens[b] !== ref.token) {
      // Only a uniform within f32 rounding of a CDF boundary may land on the neighbouring token.
      differing++;
      let cdf = 0;
      let gap = Number.POSITIVE_INFINITY;
      for (const pr of ref.probs) {
        cdf += pr;
        gap = Math.min(gap, Math.abs(cdf - ref.u));
      }
      expect(gap, `row ${b}: GPU ${got.tokens[b]}, reference ${ref.token}, u ${ref.u}`).toBeLessThan(1e-5);
      continue;
    }
    expect(got.logp[b]).toBeCloseTo(ref.logp, 4);
  }
  return { differing, got, want };
}

describe('GPU sampling', () => {
  const row = [1.0, 0.2, -0.5, 2.0, 0.0, -1.0];

  it('draws from softmax(logits/τ): chi-square passes, and fails for a neighbouring τ or uniform', async () => {
    const gpu = await testGpu();
    const B = 6000;
    const { tokens, logp } = await sample(gpu, repeatRow(row, B), { B, V: 6 }, { temperature: 0.7, seed: 11 });
    const probs = softmax(row, 0.7);
    // 5 degrees of freedom: P(χ² > 25.7) = 1e-4 for a correct sampler.
    expect(chiSquare(tokens, probs)).toBeLessThan(25.7);
    // The same draws judged against wrong distributions: the test has the power to tell them apart.
    expect(chiSquare(tokens, softmax(row, 1))).toBeGreaterThan(100);
    expect(chiSquare(tokens, softmax(row, 0.5))).toBeGreaterThan(100);
    expect(chiSquare(tokens, new Array(6).fill(1 / 6))).toBeGreaterThan(1000);
    for (let b = 0; b < 50; b++) expect(logp[b]).toBeCloseTo(Math.log(probs[tokens[b]]), 5);
  });

  it('top-k draws only from the k largest, renormalised (chi-square), with ties going to the lower id', async () => {
    const gpu = await testGpu();
    const B = 4000;
    const { tokens } = await sample(gpu, repeatRow(row, B), { B, V: 6 }, { temperature: 1.2, topK: 3, seed: 5 });
    const top = [3, 0, 1];
    expect(tokens.every((t) => top.includes(t))).toBe(true);
    const restricted = softmax(row, 1.2).map((pr, j) => (top.includes(j) ? pr : 0));
    const z = restricted.reduce((a, b) => a + b, 0);
    const probs = restricted.map((pr) => pr / z);
    const counts = top.map((j) => tokens.filter((t) => t === j).length);
    // 2 degrees of freedom: P(χ² > 18.4) = 1e-4.
    expect(top.reduce((s, j, i) => s + (counts[i] - B * probs[j]) ** 2 / (B * probs[j]), 0)).toBeLessThan(18.4);

    const tied = await sample(gpu, repeatRow([1, 3, 3, 3, 0], 2000), { B: 2000, V: 5 }, { temperature: 1, topK: 2, seed: 9 });
    expect(tied.tokens.every((t) => t === 1 || t === 2)).toBe(true);
    expect(tied.tokens.filter((t) => t === 1).length).toBeGreaterThan(900);
    expect(tied.tokens.filter((t) => t === 2).length).toBeGreaterThan(900);
    expect(Array.from(tied.logp.subarray(0, 10)).every((lp) => Math.abs(lp - Math.log(0.5)) < 1e-6)).toBe(true);
  });

  it('picks the same tokens as the TypeScript reference sampler on the same Philox uniforms', async () => {
    const shape = { B: 400, V: 37 };
    const logits = rng.uniformArray(400 * 37, -3, 3);
    const counters = Uint32Array.from({ length: 400 }, randomU32);
    for (const options of [
      { temperature: 0.9, seed: 123 },
      { temperature: 1.5, topK: 5, seed: 0xffffffff, stream: 3 },
    ]) {
      const { differing } = await compareWithReference(logits, shape, options, counters);
      expect(differing, JSON.stringify(options)).toBeLessThanOrEqual(1);
    }
  });

  it('a vocabulary of 50 000, with and without top-k, matches the reference', async () => {
    const shape = { B: 3, V: 50_000 };
    const logits = rng.uniformArray(3 * 50_000, -8, 8);
    for (const options of [
      { temperature: 1, seed: 77 },
      { temperature: 0.8, topK: 40, seed: 78 },
    ]) {
      const { differing } = await compareWithReference(logits, shape, options, new Uint32Array([0, 5, 9]));
      expect(differing).toBe(0);
    }
  });

  it('rows pick each draw its logits row (the last prompt position after a prefill), same draws as a [B, V] copy', async () => {
    const gpu = await testGpu();
    const B = 3;
    const T = 5;
    const V = 11;
    const logits = rng.uniformArray(B * T * V, -2, 2);
    const rows = new Uint32Array([4, 7, 14]); // prompts of lengths 5, 3 and 5
    const counters = new Uint32Array([5, 3, 5]);
    const options = { temperature: 0.8, topK: 4, seed: 31 };
    const picked = await sample(gpu, logits, { B, V, R: B * T }, options, counters, rows);
    const last = new Float32Array(B * V);
    for (let b = 0; b < B; b++) last.set(logits.subarray(rows[b] * V, (rows[b] + 1) * V), b * V);
    const copied = await sample(gpu, last, { B, V }, options, counters);
    expect(Array.from(picked.tokens)).toEqual(Array.from(copied.tokens));
    expect(Array.from(picked.logp)).toEqual(Array.from(copied.logp));
    const want = sampleRef(logits, { B, V }, options, counters, rows);
    expect(Array.from(picked.tokens)).toEqual(want.map((r) => r.token));
    await expect(sample(gpu, logits, { B, V, R: B * T }, options, counters, new Uint32Array([4, 7, 15]))).rejects.toThrow(/rows\[2\] = 15 is not below R = 15/);
    await expect(sample(gpu, logits, { B, V }, options, counters)).rejects.toThrow(/sample: logits holds \d+ values, expected 33/);
    await expect(sample(gpu, logits, { B, V, R: B * T }, options, counters)).rejects.toThrow(/R \(15\) differs from B \(3\) but no rows/);
  });

  it('the same seed and counters reproduce the draws; another seed, stream or counter changes them', async () => {
    const gpu = await testGpu();
    const shape = { B: 256, V: 9 };
    const logits = repeatRow([0, 0, 0, 0, 0, 0, 0, 0, 0], 256);
    const base = { temperature: 1, seed: 2024 };
    const a = await sample(gpu, logits, shape, base);
    const again = await sample(gpu, logits, shape, base);
    expect(Array.from(again.tokens)).toEqual(Array.from(a.tokens));
    const changed = async (options: SampleOptions, counters?: Uint32Array) => {
      const other = await sample(gpu, logits, shape, options, counters);
      return other.tokens.filter((t, b) => t !== a.tokens[b]).length;
    };
    // Independent draws from 9 equal tokens agree with probability 1/9: about 228 of 256 differ.
    expect(await changed({ ...base, seed: 2025 })).toBeGreaterThan(180);
    expect(await changed({ ...base, stream: 1 })).toBeGreaterThan(180);
    expect(await changed(base, new Uint32Array(256).fill(1))).toBeGreaterThan(180);
  });

  it('keyed draws follow their key, not their row: permuting the rows permutes the draws, and they match the reference', async () => {
    const gpu = await testGpu();
    const B = 64;
    const V = 7;
    const logits = new Float32Array(B * V).map(() => rng.next() * 4 - 2);
    const counters = Uint32Array.from({ length: B }, () => randomU32() >>> 8);
    const keys = Uint32Array.from({ length: 2 * B }, (_, i) => (i % 2 === 0 ? 1000 + (i >> 1) : i % 5));
    const options = { temperature: 1, seed: 77 };
    const shape = { B, V };
    const a = await sample(gpu, logits, shape, options, counters, undefined, keys);
    const want = sampleRef(logits, shape, options, counters, undefined, keys);
    expect(Array.from(a.tokens)).toEqual(want.map((r) => r.token));
    // The same sequences in reverse row order: each draw moves with its row's logits, counter and key.
    const order = Array.from({ length: B }, (_, b) => B - 1 - b);
    const permuted = (x: ArrayLike<number>, width: number, C: typeof Float32Array | typeof Uint32Array) => {
      const out = new C(B * width);
      order.forEach((from, to) => {
        for (let j = 0; j < width; j++) out[to * width + j] = x[from * width + j];
      });
      return out;
    };
    /** The same draws with the rows in reverse order, keyed or not. */
    const reversed = (keyed: boolean) =>
      sample(
        gpu,
        permuted(logits, V, Float32Array) as Float32Array,
        shape,
        options,
        permuted(counters, 1, Uint32Array) as Uint32Array,
        undefined,
        keyed ? (permuted(keys, 2, Uint32Array) as Uint32Array) : undefined,
      );
    const b = await reversed(true);
    expect(Array.from(b.tokens)).toEqual(order.map((from) => a.tokens[from]));
    // Unkeyed, the same permutation changes the draws (they follow the row index): most of them differ.
    const unkeyed = await sample(gpu, logits, shape, options, counters);
    const unkeyedPermuted = await reversed(false);
    expect(order.filter((from, to) => unkeyedPermuted.tokens[to] !== unkeyed.tokens[from]).length).toBeGreaterThan(B / 3);
  });

  it('τ = 0 is greedy: the largest logit, the lowest id on ties, log-prob 0', async () => {
    const gpu = await testGpu();
    const logits = Float32Array.of(0.5, 2, -1, 2, /* row 2 */ -5, -4, -4.5, -7);
    const { tokens, logp } = await sample(gpu, logits, { B: 2, V: 4 }, { temperature: 0, topK: 2, seed: 1 });
    expect(Array.from(tokens)).toEqual([1, 1]);
    expect(Array.from(logp)).toEqual([0, 0]);
  });

  it('rejects bad temperatures, top-k, seeds and arrays that do not fit', async () => {
    const gpu = await testGpu();
    const shape = { B: 2, V: 3 };
    const logits = new Float32Array(6);
    await expect(sample(gpu, logits, shape, { temperature: -1, seed: 0 })).rejects.toThrow(/temperature must be a finite number ≥ 0/);
    await expect(sample(gpu, logits, shape, { temperature: 1e-6, seed: 0 })).rejects.toThrow(/0 \(greedy\) or at least/);
    await expect(sample(gpu, logits, shape, { temperature: 1, topK: 1.5, seed: 0 })).rejects.toThrow(/topK must be a non-negative integer/);
    await expect(sample(gpu, logits, shape, { temperature: 1, seed: -3 })).rejects.toThrow(/seed must be an integer in \[0, 2³²\)/);
    await expect(sample(gpu, logits, shape, { temperature: 1, seed: 0 }, new Uint32Array(3))).rejects.toThrow(/sample: counters holds 3 values, expected 2/);
    await expect(sample(gpu, Float32Array.of(0, 1, Number.POSITIVE_INFINITY, 0, 0, 0), shape, { temperature: 1, seed: 0 })).rejects.toThrow(/logits\[2\]/);
  });
});
