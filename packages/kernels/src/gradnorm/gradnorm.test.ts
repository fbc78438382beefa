import { describe, expect, it } from 'vitest';
import { FLAG_FROZEN, parameterFlags } from '../adamw/flags.ts';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { gradNormRef } from './gradnorm.ref.ts';
import { gradNorm } from './gradnorm.ts';

const rng = new SeededRandom(61);

describe('global grad-norm and clip scale', () => {
  it('matches the float64 reference on 100 003 elements, clipping when above maxNorm', async () => {
    const gpu = await testGpu();
    const grads = rng.uniformArray(100_003);
    const want = gradNormRef(grads, 1.0);
    const got = await gradNorm(gpu, grads, { maxNorm: 1.0 });
    expect(want.norm).toBeGreaterThan(100);
    expect([got.norm, got.clipScale]).toBeAllClose([want.norm, want.clipScale], { atol: 0, rtol: 1e-5 });
  });

  it('the clip scale is exactly 1 below maxNorm, and with maxNorm = Infinity', async () => {
    const gpu = await testGpu();
    const grads = rng.uniformArray(1000, -0.01, 0.01);
    expect((await gradNorm(gpu, grads, { maxNorm: 1 })).clipScale).toBe(1);
    expect((await gradNorm(gpu, rng.uniformArray(5000, -100, 100), { maxNorm: Number.POSITIVE_INFINITY })).clipScale).toBe(1);
    const zero = await gradNorm(gpu, new Float32Array(7), { maxNorm: 0.5 });
    expect(zero).toEqual({ norm: 0, clipScale: 1 });
  });

  it('sizes below, at and just above the number of partial sums', async () => {
    const gpu = await testGpu();
    for (const n of [1, 2047, 2048, 2049, 4097]) {
      const grads = rng.uniformArray(n);
      const got = await gradNorm(gpu, grads, { maxNorm: 2 });
      const want = gradNormRef(grads, 2);
      expect([got.norm, got.clipScale]).toBeAllClose([want.norm, want.clipScale], { atol: 0, rtol: 1e-5, name: `n = ${n}` });
    }
  });

  it('leaves frozen blocks out of the norm, on the scalar (n % 4 ≠ 0) and vec4 paths', async () => {
    const gpu = await testGpu();
    for (const n of [64 * 5 + 10, 64 * 5 + 12]) {
      const grads = rng.uniformArray(n);
      grads.fill(1000, 128, 192);
      const flags = parameterFlags(n, [{ offset: 128, size: 64, frozen: true }]);
      expect(flags[2]).toBe(FLAG_FROZEN);
      const got = await gradNorm(gpu, grads, { maxNorm: 1, flags });
      const want = gradNormRef(grads, 1, flags);
      expect(want.norm).toBeLessThan(20);
      expect([got.norm, got.clipScale]).toBeAllClose([want.norm, want.clipScale], { atol: 0, rtol: 1e-5, name: `n = ${n}` });
    }
  });

  it('is deterministic and refuses a non-positive maxNorm', async () => {
    const gpu = await testGpu();
    const grads = rng.uniformArray(30_001, -50, 50);
    const first = await gradNorm(gpu, grads, { maxNorm: 1 });
    expect(await gradNorm(gpu, grads, { maxNorm: 1 })).toEqual(first);
    await expect(gradNorm(gpu, grads, { maxNorm: 0 })).rejects.toThrow(/maxNorm must be positive/);
    await expect(gradNorm(gpu, grads, { maxNorm: Number.NaN })).rejects.toThrow(/maxNorm must be positive/);
  });
});
