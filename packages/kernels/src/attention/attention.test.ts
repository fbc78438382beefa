import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { attentionBackwardRef, attentionForwardRef } from './attention.ref.ts';
import { type AttentionShape, attentionBackward, attentionForward } from './attention.ts';

const rng = new SeededRandom(31);

async function checkShape(shape: AttentionShape, spread = 1) {
  const gpu = await testGpu();
  const { B, T, D } = shape;
  const qkv = rng.uniformArray(B * T * 3 * D, -spread, spread);
  const dout = rng.uniformArray(B * T * D);
  const name = JSON.stringify(shape);
  const got = await attentionForward(gpu, qkv, shape);
  const want = attentionForwardRef(qkv, shape);
  expect(got.out).toBeAllClose(want.out, { atol: 1e-5, rtol: 1e-4, name: `out ${name}` });
  expect(got.att).toBeAllClose(want.att, { atol: 1e-6, rtol: 1e-4, name: `att ${name}` });
  const dqkv = await attentionBackward(gpu, qkv, got.att, got.out, dout, shape);
  const wantD = attentionBackwardRef(qkv, want.att, dout, shape);
  expect(dqkv).toBeAllClose(wantD, { atol: 1e-5 * spread, rtol: 1e-4, name: `dqkv ${name}` });
}

describe('causal attention on the GPU against the float64 reference', () => {
  it('B=2, T=11, H=2, hd=4', async () => {
    await checkShape({ B: 2, T: 11, H: 2, D: 8 });
  });

  it('odd head width (hd=5, H=3), a single token, and one head of width 7', async () => {
    await checkShape({ B: 3, T: 6, H: 3, D: 15 });
    await checkShape({ B: 2, T: 1, H: 2, D: 8 });
    await checkShape({ B: 1, T: 13, H: 1, D: 7 });
  });

  it('rows per invocation 4, 2 and 1 (hd 8, 32, 40), with lengths that leave a partial last block', async () => {
    await checkShape({ B: 1, T: 37, H: 2, D: 16 });
    await checkShape({ B: 1, T: 9, H: 2, D: 64 });
    await checkShape({ B: 1, T: 5, H: 1, D: 40 });
  });

  it('stays finite and accurate when the softmax is nearly one-hot (scores in the tens)', async () => {
    await checkShape({ B: 1, T: 9, H: 2, D: 16 }, 12);
  });

  it('probabilities are causal: each row sums to 1 and is zero past the diagonal', async () => {
    const gpu = await testGpu();
    const shape = { B: 2, T: 7, H: 2, D: 6 };
    const { att } = await attentionForward(gpu, rng.uniformArray(2 * 7 * 18, -3, 3), shape);
    for (let row = 0; row < 2 * 2 * 7; row++) {
      const t = row % 7;
      let sum = 0;
      for (let j = 0; j < 7; j++) {
        const pr = att[row * 7 + j];
        if (j > t) expect(pr).toBe(0);
        sum += pr;
      }
      expect(sum).toBeCloseTo(1, 5);
    }
  });

  it('a later token does not change earlier outputs (the mask holds)', async () => {
    const gpu = await testGpu();
    const shape = { B: 1, T: 5, H: 2, D: 8 };
    const qkv = rng.uniformArray(5 * 24);
    const changed = qkv.slice();
    for (let c = 0; c < 24; c++) changed[4 * 24 + c] += 0.5;
    const a = await attentionForward(gpu, qkv, shape);
    const b = await attentionForward(gpu, changed, shape);
    expect(Array.from(b.out.subarray(0, 4 * 8))).toEqual(Array.from(a.out.subarray(0, 4 * 8)));
    expect(b.out[4 * 8]).not.toBe(a.out[4 * 8]);
  });

  it('rejects shapes and arrays that do not fit, naming the argument', async () => {
    const gpu = await testGpu();
    await expect(attentionForward(gpu, new Float32Array(30), { B: 1, T: 2, H: 4, D: 6 })).rejects.toThrow(/D \(6\) must be a multiple of H \(4\)/);
    await expect(attentionForward(gpu, new Float32Array(30), { B: 1, T: 2, H: 2, D: 6 })).rejects.toThrow(/attention: qkv holds 30 values, expected 36/);
    await expect(attentionForward(gpu, new Float32Array(0), { B: 1, T: 0, H: 2, D: 6 })).rejects.toThrow(/T must be a positive integer/);
    await expect(
      attentionBackward(gpu, new Float32Array(36), new Float32Array(8), new Float32Array(12), new Float32Array(11), { B: 1, T: 2, H: 2, D: 6 }),
    ).rejects.toThrow(/attentionBackward: dout holds 11 values, expected 12/);
  });
});

describe('the attention reference backward against finite differences of its forward', () => {
  it('matches central differences of L = Σ out ⊙ w for every qkv entry', () => {
    const shape = { B: 2, T: 4, H: 2, D: 6 };
    const n = shape.B * shape.T * 3 * shape.D;
    const qkv = Float64Array.from(rng.uniformArray(n, -1.5, 1.5));
    const w = Float64Array.from(rng.uniformArray(shape.B * shape.T * shape.D));
    const loss = (x: Float64Array) => attentionForwardRef(x, shape).out.reduce((s, o, i) => s + o * w[i], 0);
    const analytic = attentionBackwardRef(qkv, attentionForwardRef(qkv, shape).att, w, shape);
    const numeric = new Float64Array(n);
    const eps = 1e-6;
    for (let i = 0; i < n; i++) {
      const plus = qkv.slice();
      const minus = qkv.slice();
      plus[i] += eps;
      minus[i] -= eps;
      numeric[i] = (loss(plus) - loss(minus)) / (2 * eps);
    }
    expect(analytic).toBeAllClose(numeric, { atol: 1e-8, rtol: 1e-6 });
    // Not vacuous: the loss depends on qkv, so some gradients are far from zero.
    expect(numeric.some((g) => Math.abs(g) > 1e-3)).toBe(true);
  });
});
