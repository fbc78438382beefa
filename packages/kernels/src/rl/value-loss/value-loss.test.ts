import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { actionCounts, lossScales } from '../aggregate/scales.ts';
import { valueLossRef } from './value-loss.ref.ts';
import { valueLoss } from './value-loss.ts';

const rng = new SeededRandom(53);

function randomCase(B: number, T: number) {
  const N = B * T;
  const oldValues = rng.uniformArray(N, -1, 1);
  const values = oldValues.map((v) => v + (rng.next() - 0.5) * 0.8);
  return { values, oldValues, returns: rng.uniformArray(N, -1, 1), mask: Uint32Array.from({ length: N }, () => (rng.next() < 0.7 ? 1 : 0)) };
}

describe('clipped value loss', () => {
  for (const clip of [0.2, undefined]) {
    it(`clip ${clip}: GPU matches the float64 reference`, async () => {
      const gpu = await testGpu();
      const B = 4;
      const T = 141;
      const c = randomCase(B, T);
      const got = await valueLoss(gpu, c, { B, T, ...(clip === undefined ? {} : { clip }), mode: 'seq-mean-token-mean' });
      const want = valueLossRef(
        { ...c, scales: lossScales(actionCounts(c.mask, B, T), { mode: 'seq-mean-token-mean' }) },
        { B, T, ...(clip === undefined ? {} : { clip }) },
      );
      expect(got.perToken).toBeAllClose(want.perToken, { atol: 1e-6, rtol: 1e-5 });
      expect(got.grad).toBeAllClose(want.grad, { atol: 1e-7, rtol: 1e-5 });
      expect([got.loss, got.clipFraction]).toBeAllClose([want.loss, want.clipFraction], { atol: 1e-6, rtol: 1e-5 });
      if (clip !== undefined) expect(got.clipFraction).toBeGreaterThan(0);
    });
  }

  it('the clip stops the gradient only when the clipped error is strictly larger', async () => {
    const gpu = await testGpu();
    // V moved 0.5 away from V_old towards R̂ = 1: clipped value 0.2 is further from R̂ → clipped, no gradient.
    // V moved 0.5 away from V_old and away from R̂ = −1: the unclipped error is larger → gradient V − R̂.
    const got = await valueLoss(
      gpu,
      { values: Float32Array.of(0.5, 0.5), oldValues: Float32Array.of(0, 0), returns: Float32Array.of(1, -1), mask: Uint32Array.of(1, 1) },
      { B: 1, T: 2, clip: 0.2, mode: 'token-mean' },
    );
    expect(got.perToken).toBeAllClose([0.5 * 0.8 ** 2, 0.5 * 1.5 ** 2], { atol: 1e-6 });
    expect(got.grad).toBeAllClose([0, 1.5 / 2], { atol: 1e-7 });
    expect(got.clipFraction).toBe(0.5);
  });

  it('inside the clip range no token is clipped, though V_old + (V − V_old) rounds away from V in f32', async () => {
    const gpu = await testGpu();
    const N = 4096;
    const oldValues = rng.uniformArray(N, -3, 3);
    const values = oldValues.map((v) => v + (rng.next() - 0.5) * 0.39); // |V − V_old| < 0.2
    const returns = rng.uniformArray(N, -3, 3);
    let rounded = 0;
    for (let i = 0; i < N; i++) if (Math.fround(oldValues[i] + Math.fround(values[i] - oldValues[i])) !== values[i]) rounded++;
    expect(rounded).toBeGreaterThan(0); // the hazard is present in this data
    const got = await valueLoss(gpu, { values, oldValues, returns, mask: new Uint32Array(N).fill(1) }, { B: 1, T: N, clip: 0.2 });
    expect(got.clipFraction).toBe(0);
    expect(got.grad).toBeAllClose(
      Array.from(values, (v, i) => (v - returns[i]) / N),
      { atol: 1e-9, rtol: 1e-5 },
    );
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const c = { values: new Float32Array(2), oldValues: new Float32Array(2), returns: new Float32Array(2), mask: Uint32Array.of(1, 1) };
    await expect(valueLoss(gpu, c, { B: 1, T: 2, clip: -0.2 })).rejects.toThrow(/clip/);
    await expect(valueLoss(gpu, { ...c, returns: Float32Array.of(Number.NaN, 0) }, { B: 1, T: 2 })).rejects.toThrow(/returns\[0\] is NaN/);
    await expect(valueLoss(gpu, { ...c, oldValues: new Float32Array(1) }, { B: 1, T: 2 })).rejects.toThrow(/oldValues holds 1/);
  });
});
