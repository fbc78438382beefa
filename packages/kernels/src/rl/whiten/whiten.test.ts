import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { whitenRef } from './whiten.ref.ts';
import { WHITEN_EPS, whiten } from './whiten.ts';

const rng = new SeededRandom(31);

describe('masked whitening', () => {
  it('matches the float64 reference on an awkward size with a sparse mask', async () => {
    const gpu = await testGpu();
    const B = 7;
    const T = 123;
    const values = rng.uniformArray(B * T, -5, 5).map((x) => x + 3);
    const mask = Uint32Array.from({ length: B * T }, () => (rng.next() < 0.4 ? 1 : 0));
    const got = await whiten(gpu, { values, mask }, { B, T });
    const want = whitenRef(values, mask, WHITEN_EPS);
    expect(got.whitened).toBeAllClose(want.whitened, { atol: 2e-6, rtol: 1e-5 });
    expect([got.mean, got.variance]).toBeAllClose([want.mean, want.variance], { atol: 1e-6, rtol: 1e-5 });
  });

  it('masked outputs are 0 and the masked-in outputs have mean 0, unbiased variance 1', async () => {
    const gpu = await testGpu();
    const values = rng.uniformArray(600, 0, 10);
    const mask = Uint32Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? 0 : 1));
    const { whitened } = await whiten(gpu, { values, mask }, { B: 2, T: 300 });
    const kept = Array.from(whitened).filter((_, i) => mask[i]);
    const mean = kept.reduce((a, x) => a + x, 0) / kept.length;
    const variance = kept.reduce((a, x) => a + (x - mean) ** 2, 0) / (kept.length - 1);
    expect(Math.abs(mean)).toBeLessThan(1e-6);
    expect(variance).toBeCloseTo(1, 5);
    for (let i = 0; i < 600; i += 3) expect(whitened[i]).toBe(0);
  });

  it('identical values whiten to exactly 0, not to a residue blown up by ε (NeMo-RL #4161)', async () => {
    const gpu = await testGpu();
    for (const x of [0.7, 1e4 + 0.1, -3.3]) {
      const values = new Float32Array(1000).fill(x);
      const { whitened, variance } = await whiten(gpu, { values, mask: new Uint32Array(1000).fill(1) }, { B: 1, T: 1000 });
      expect(variance).toBe(0);
      expect(whitened.every((v) => v === 0)).toBe(true);
    }
  });

  it('large offsets keep f32 precision (two-pass, not E[x²] − E[x]²)', async () => {
    const gpu = await testGpu();
    const values = Float32Array.from({ length: 513 }, (_, i) => 1000 + (i % 2 ? 1e-2 : -1e-2));
    const mask = new Uint32Array(513).fill(1);
    const got = await whiten(gpu, { values, mask }, { B: 1, T: 513 });
    const want = whitenRef(values, mask, WHITEN_EPS);
    expect(got.whitened).toBeAllClose(want.whitened, { atol: 1e-3, rtol: 1e-3 });
  });

  it('no or one action token gives zeros', async () => {
    const gpu = await testGpu();
    const none = await whiten(gpu, { values: Float32Array.of(1, 2, 3), mask: Uint32Array.of(0, 0, 0) }, { B: 1, T: 3 });
    expect(Array.from(none.whitened)).toEqual([0, 0, 0]);
    const one = await whiten(gpu, { values: Float32Array.of(1, 2, 3), mask: Uint32Array.of(0, 1, 0) }, { B: 1, T: 3 });
    expect(Array.from(one.whitened)).toEqual([0, 0, 0]);
    expect(one.mean).toBe(2);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    await expect(whiten(gpu, { values: Float32Array.of(1, Number.POSITIVE_INFINITY), mask: Uint32Array.of(1, 1) }, { B: 1, T: 2 })).rejects.toThrow(
      /values\[1\] is Infinity/,
    );
    await expect(whiten(gpu, { values: Float32Array.of(1, 2), mask: Uint32Array.of(1) }, { B: 1, T: 2 })).rejects.toThrow(/mask holds 1 values, expected 2/);
    await expect(whiten(gpu, { values: Float32Array.of(1, 2), mask: Uint32Array.of(1, 1) }, { B: 1, T: 2, eps: -1 })).rejects.toThrow(/eps/);
  });
});
