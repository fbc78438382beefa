import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { attentionForward } from './attention.ts';
import { decodeAttentionRef, kvCacheWriteRef } from './kv-cache.ref.ts';
import { decodeAttention, type KvCacheShape, kvCacheWrite } from './kv-cache.ts';

const rng = new SeededRandom(53);

describe('KV-cache write', () => {
  it('writes S tokens per sequence at its own position and drops positions past Tmax', async () => {
    const gpu = await testGpu();
    const shape: KvCacheShape = { B: 3, H: 2, D: 10, Tmax: 10 };
    const S = 4;
    const cacheSize = 3 * 2 * 10 * 5;
    const qkv = rng.uniformArray(3 * S * 30);
    const pos = new Uint32Array([0, 5, 8]); // the last sequence has room for 2 of its 4 tokens
    const k0 = rng.uniformArray(cacheSize, 50, 60); // junk that must survive outside the written slots
    const v0 = rng.uniformArray(cacheSize, 50, 60);
    const got = await kvCacheWrite(gpu, qkv, pos, k0, v0, shape, S);
    const want = kvCacheWriteRef(qkv, pos, k0, v0, shape, S);
    expect(got.kCache).toBeAllClose(want.kCache, { atol: 0, rtol: 0, name: 'kCache' });
    expect(got.vCache).toBeAllClose(want.vCache, { atol: 0, rtol: 0, name: 'vCache' });
    // Sequence 2 (pos 8) put its tokens 0 and 1 at positions 8 and 9 and kept the junk at position 0.
    const hd = 5;
    expect(got.kCache[((2 * 2 + 1) * 10 + 9) * hd]).toBe(qkv[(2 * S + 1) * 30 + 10 + hd]);
    expect(got.kCache[((2 * 2 + 1) * 10 + 0) * hd]).toBe(k0[((2 * 2 + 1) * 10 + 0) * hd]);
  });
});

describe('decode attention over the KV cache', () => {
  for (const shape of [
    { B: 3, H: 2, D: 10, Tmax: 9 },
    { B: 2, H: 3, D: 12, Tmax: 7 },
  ]) {
    it(`matches the float64 reference (hd=${shape.D / shape.H}, per-sequence positions)`, async () => {
      const gpu = await testGpu();
      const cacheSize = shape.B * shape.D * shape.Tmax;
      const qkv = rng.uniformArray(shape.B * 3 * shape.D, -3, 3);
      const k = rng.uniformArray(cacheSize, -3, 3);
      const v = rng.uniformArray(cacheSize);
      const pos = Uint32Array.from({ length: shape.B }, (_, b) => (b === 0 ? 0 : shape.Tmax - b));
      const got = await decodeAttention(gpu, qkv, k, v, pos, shape);
      expect(got).toBeAllClose(decodeAttentionRef(qkv, k, v, pos, shape), { atol: 1e-5, rtol: 1e-4 });
    });
  }

  it('equals the full causal forward at every position once the prompt is prefilled', async () => {
    const gpu = await testGpu();
    const B = 2;
    const T = 8;
    const H = 2;
    const D = 8;
    const shape: KvCacheShape = { B, H, D, Tmax: T };
    const qkv = rng.uniformArray(B * T * 3 * D, -2, 2);
    const full = await attentionForward(gpu, qkv, { B, T, H, D });
    const zeros = new Float32Array(B * D * T);
    // Prefill writes all T tokens; decoding position t must ignore the cached tokens after t.
    const cache = await kvCacheWrite(gpu, qkv, new Uint32Array(B), zeros, zeros, shape, T);
    for (const t of [0, 3, T - 1]) {
      const row = new Float32Array(B * 3 * D);
      for (let b = 0; b < B; b++) row.set(qkv.subarray((b * T + t) * 3 * D, (b * T + t + 1) * 3 * D), b * 3 * D);
      const out = await decodeAttention(gpu, row, cache.kCache, cache.vCache, new Uint32Array([t, t]), shape);
      const want = new Float32Array(B * D);
      for (let b = 0; b < B; b++) want.set(full.out.subarray((b * T + t) * D, (b * T + t + 1) * D), b * D);
      expect(out).toBeAllClose(want, { atol: 1e-5, rtol: 1e-4, name: `position ${t}` });
    }
  });

  it('with S queries per sequence (a prefill chunk) matches the reference and each query equals its own decode step bit for bit', async () => {
    const gpu = await testGpu();
    const shape: KvCacheShape = { B: 3, H: 2, D: 8, Tmax: 11 };
    const S = 4;
    const { B, D, Tmax } = shape;
    const qkv = rng.uniformArray(B * S * 3 * D, -3, 3);
    const k = rng.uniformArray(B * D * Tmax, -3, 3);
    const v = rng.uniformArray(B * D * Tmax);
    // Each sequence's chunk starts at its own position; the last runs past Tmax (clamped like a decode step).
    const starts = [0, 5, Tmax - 2];
    const pos = Uint32Array.from({ length: B * S }, (_, bs) => Math.min(starts[Math.floor(bs / S)] + (bs % S), Tmax - 1));
    const got = await decodeAttention(gpu, qkv, k, v, pos, shape, S);
    expect(got).toBeAllClose(decodeAttentionRef(qkv, k, v, pos, shape, S), { atol: 1e-5, rtol: 1e-4 });
    for (let s = 0; s < S; s++) {
      const row = new Float32Array(B * 3 * D);
      const rowPos = new Uint32Array(B);
      for (let b = 0; b < B; b++) {
        row.set(qkv.subarray((b * S + s) * 3 * D, (b * S + s + 1) * 3 * D), b * 3 * D);
        rowPos[b] = pos[b * S + s];
      }
      const step = await decodeAttention(gpu, row, k, v, rowPos, shape);
      for (let b = 0; b < B; b++)
        expect(Array.from(got.subarray((b * S + s) * D, (b * S + s + 1) * D)), `b ${b}, s ${s}`).toEqual(Array.from(step.subarray(b * D, (b + 1) * D)));
    }
  });

  it('stays accurate when scores are large and the running max keeps changing', async () => {
    const gpu = await testGpu();
    const shape: KvCacheShape = { B: 1, H: 1, D: 8, Tmax: 12 };
    const qkv = rng.uniformArray(24, -4, 4);
    // Keys that grow along the cache so the online max is replaced at almost every step.
    const k = new Float32Array(12 * 8);
    for (let j = 0; j < 12; j++) for (let d = 0; d < 8; d++) k[j * 8 + d] = Math.sign(qkv[d]) * (1 + j);
    const v = rng.uniformArray(12 * 8);
    const pos = new Uint32Array([11]);
    const got = await decodeAttention(gpu, qkv, k, v, pos, shape);
    expect(got).toBeAllClose(decodeAttentionRef(qkv, k, v, pos, shape), { atol: 1e-5, rtol: 1e-4 });
  });

  it('rejects positions outside the cache and arrays that do not fit', async () => {
    const gpu = await testGpu();
    const shape: KvCacheShape = { B: 2, H: 1, D: 4, Tmax: 5 };
    const cache = new Float32Array(40);
    await expect(decodeAttention(gpu, new Float32Array(24), cache, cache, new Uint32Array([1, 5]), shape)).rejects.toThrow(/pos\[1\] = 5 is outside/);
    await expect(decodeAttention(gpu, new Float32Array(23), cache, cache, new Uint32Array([1, 2]), shape)).rejects.toThrow(
      /decodeAttention: qkv holds 23 values, expected 24/,
    );
    await expect(kvCacheWrite(gpu, new Float32Array(24), new Uint32Array(2), cache, cache, shape, 0)).rejects.toThrow(/S must be a positive/);
  });
});
