import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { ktoRef } from './kto.ref.ts';
import { type KtoInputs, kto, ktoMismatchedPairs } from './kto.ts';

const rng = new SeededRandom(83);

function randomCase(B: number, T: number, klShift = 0): KtoInputs {
  const N = B * T;
  const refLogp = rng.uniformArray(N, -5, -0.1);
  const klRefLogp = rng.uniformArray(N, -5, -0.1);
  return {
    logp: refLogp.map((x) => x + (rng.next() - 0.5) * 0.6),
    refLogp,
    mask: Uint32Array.from({ length: N }, () => (rng.next() < 0.7 ? 1 : 0)),
    klLogp: klRefLogp.map((x) => x + (rng.next() - 0.5) * 0.6 + klShift),
    klRefLogp,
    klMask: Uint32Array.from({ length: N }, () => (rng.next() < 0.7 ? 1 : 0)),
    desirable: Uint32Array.from({ length: B }, () => (rng.next() < 0.5 ? 1 : 0)),
  };
}

const PARAMS = { beta: 0.1, lambdaD: 1, lambdaU: 1.3 };

describe('KTO', () => {
  for (const klShift of [0.05, -0.05]) {
    it(`GPU matches the float64 reference (odd batch, z0 ${klShift > 0 ? 'positive' : 'clamped at 0'})`, async () => {
      const gpu = await testGpu();
      const B = 7;
      const T = 45;
      const c = randomCase(B, T, klShift);
      const got = await kto(gpu, c, { ...PARAMS, B, T });
      const want = ktoRef(c, { ...PARAMS, B, T });
      if (klShift < 0) expect(want.z0).toBe(0);
      else expect(want.z0).toBeGreaterThan(0);
      expect([got.loss, got.z0]).toBeAllClose([want.loss, want.z0], { atol: 1e-6, rtol: 1e-5 });
      expect(got.rewards).toBeAllClose(want.rewards, { atol: 1e-5, rtol: 1e-5 });
      expect(got.perSample).toBeAllClose(want.perSample, { atol: 1e-6, rtol: 1e-5 });
      expect(got.grad).toBeAllClose(want.grad, { atol: 1e-8, rtol: 1e-5 });
    });
  }

  it('no gradient flows into z0: the gradient is the derivative with z0 held fixed, not the total one', async () => {
    const gpu = await testGpu();
    // Make the mismatched log-probs a function of the matched ones (as they would be if both came from
    // one differentiable pass): klLogp = rotate(logp) + 0.5, so z0 > 0 and depends on logp.
    const B = 3;
    const T = 4;
    const c = randomCase(B, T);
    c.mask.fill(1);
    c.klMask.fill(1);
    c.klRefLogp = Float32Array.from({ length: B * T }, (_, i) => c.refLogp[(i + T) % (B * T)]);
    const tie = (logp: ArrayLike<number>) => Float64Array.from({ length: B * T }, (_, i) => logp[(i + T) % (B * T)] + 0.5);
    const loss = (logp: Float64Array, klLogp: Float64Array) => ktoRef({ ...c, logp, klLogp }, { ...PARAMS, beta: 1, B, T }).loss;
    const base = Float64Array.from(c.logp);
    const got = await kto(gpu, { ...c, klLogp: Float32Array.from(tie(base)) }, { ...PARAMS, beta: 1, B, T });
    expect(got.z0).toBeGreaterThan(0);
    const h = 1e-5;
    let maxGap = 0;
    for (let i = 0; i < B * T; i++) {
      const plus = base.slice();
      const minus = base.slice();
      plus[i] += h;
      minus[i] -= h;
      const partial = (loss(plus, tie(base)) - loss(minus, tie(base))) / (2 * h);
      const total = (loss(plus, tie(plus)) - loss(minus, tie(minus))) / (2 * h);
      expect(got.grad[i]).toBeCloseTo(partial, 5);
      maxGap = Math.max(maxGap, Math.abs(total - partial));
    }
    expect(maxGap).toBeGreaterThan(1e-3); // a non-detached z0 would have moved the gradient
  });

  it('mismatched pairs rotate by one and never pair a row with itself', () => {
    expect(Array.from(ktoMismatchedPairs(3))).toEqual([1, 2, 0]);
    for (const B of [2, 5, 8]) expect(Array.from(ktoMismatchedPairs(B)).every((j, b) => j !== b)).toBe(true);
    expect(() => ktoMismatchedPairs(1)).toThrow(/at least 2/);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const c = randomCase(2, 3);
    await expect(kto(gpu, c, { ...PARAMS, beta: -1, B: 2, T: 3 })).rejects.toThrow(/beta/);
    await expect(kto(gpu, { ...c, desirable: Uint32Array.of(1, 2) }, { ...PARAMS, B: 2, T: 3 })).rejects.toThrow(/desirable\[1\] is 2/);
    await expect(kto(gpu, { ...c, klLogp: new Float32Array(5) }, { ...PARAMS, B: 2, T: 3 })).rejects.toThrow(/klLogp holds 5/);
    await expect(kto(gpu, c, { ...PARAMS, lambdaU: Number.NaN, B: 2, T: 3 })).rejects.toThrow(/lambdaU/);
  });
});
