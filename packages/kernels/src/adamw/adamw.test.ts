import { describe, expect, it } from 'vitest';
import { gradNormRef } from '../gradnorm/gradnorm.ref.ts';
import { recordGradNorm } from '../gradnorm/gradnorm.ts';
import { GRAD_NORM_PARTIALS } from '../gradnorm/gradnorm.wgsl.ts';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { adamWRef } from './adamw.ref.ts';
import { ADAMW_STEP_SIZE, type AdamWHyperparameters, adamW, recordAdamW, writeAdamWStep } from './adamw.ts';
import { FLAG_DECAY, FLAG_FROZEN, parameterFlags } from './flags.ts';

const rng = new SeededRandom(71);
const hyper: AdamWHyperparameters = { lr: 1e-2, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1 };
const tol = { atol: 1e-6, rtol: 1e-5 };

function randomState(n: number) {
  return { params: rng.uniformArray(n), grads: rng.uniformArray(n), m: rng.uniformArray(n, -0.1, 0.1), v: rng.uniformArray(n, 0, 0.01) };
}

// n = 1003: 15 full blocks and a ragged one. Blocks 0–5 decay, 6–9 are frozen, 10–15 train without decay.
const n = 1003;
const flags = parameterFlags(n, [
  { offset: 0, size: 384, decay: true },
  { offset: 384, size: 256, frozen: true },
  { offset: 640, size: 363 },
]);

describe('AdamW', () => {
  it('matches the float64 reference with decay, frozen and plain blocks, a clip scale and late bias corrections', async () => {
    const gpu = await testGpu();
    for (const step of [1, 500]) {
      const state = randomState(n);
      const options = { step, hyper, clipScale: 0.5, flags };
      const got = await adamW(gpu, state, options);
      const want = adamWRef(state, options);
      for (const key of ['params', 'm', 'v'] as const) expect(got[key]).toBeAllClose(want[key], { ...tol, name: `${key} at step ${step}` });
    }
  });

  it('frozen blocks keep params and both moments bit for bit; decay only touches decay blocks', async () => {
    const gpu = await testGpu();
    const state = { ...randomState(n), grads: new Float32Array(n), m: new Float32Array(n), v: new Float32Array(n) };
    const got = await adamW(gpu, state, { step: 3, hyper: { ...hyper, lr: 0.5, weightDecay: 0.2 }, flags });
    const frozen = [384, 640] as const;
    for (const key of ['params', 'm', 'v'] as const) expect(got[key].subarray(...frozen)).toEqual(state[key].subarray(...frozen));
    // Zero gradients and moments: the only change is p·(1 − lr·wd) = 0.9·p where decay is on.
    expect(got.params.subarray(0, 384)).toBeAllClose(
      state.params.subarray(0, 384).map((p) => 0.9 * p),
      tol,
    );
    expect(got.params.subarray(640)).toEqual(state.params.subarray(640));
  });

  it('lr = 0 leaves the parameters unchanged while the moments still update', async () => {
    const gpu = await testGpu();
    const state = randomState(200);
    const got = await adamW(gpu, state, { step: 1, hyper: { ...hyper, lr: 0 } });
    expect(got.params).toEqual(state.params);
    expect(got.m).toBeAllClose(adamWRef(state, { step: 1, hyper: { ...hyper, lr: 0 } }).m, tol);
  });

  it('reads step and lr from the step tensor each submit, and the clip scale from the grad-norm output', async () => {
    const gpu = await testGpu();
    const size = 700;
    const start = randomState(size);
    const stepFlags = new Uint32Array(Math.ceil(size / 64)).fill(FLAG_DECAY);
    const t = {
      params: gpu.upload(start.params),
      grads: gpu.upload(start.grads),
      m: gpu.upload(start.m),
      v: gpu.upload(start.v),
      flags: gpu.upload(stepFlags),
      step: gpu.tensor([ADAMW_STEP_SIZE]),
      clip: gpu.tensor([2]),
    };
    const partials = gpu.tensor([GRAD_NORM_PARTIALS]);
    const schedule = [hyper.lr, hyper.lr / 4];
    let want: { params: Float64Array; m: Float64Array; v: Float64Array } = {
      params: Float64Array.from(start.params),
      m: Float64Array.from(start.m),
      v: Float64Array.from(start.v),
    };
    const { clipScale } = gradNormRef(start.grads, 3);
    expect(clipScale).toBeLessThan(1);
    for (const [index, lr] of schedule.entries()) {
      writeAdamWStep(gpu, t.step, index + 1, { ...hyper, lr });
      gpu.run((rec) => {
        recordGradNorm(rec, gpu, { grads: t.grads, partials, out: t.clip }, { maxNorm: 3 });
        recordAdamW(rec, gpu, t);
      });
      want = adamWRef({ ...want, grads: start.grads }, { step: index + 1, hyper: { ...hyper, lr }, clipScale });
    }
    expect(await gpu.read(t.params)).toBeAllClose(want.params, { ...tol, name: 'params after two steps' });
    expect(await gpu.read(t.v)).toBeAllClose(want.v, { ...tol, name: 'v after two steps' });
    for (const tensor of [...Object.values(t), partials]) gpu.destroy(tensor);
  });

  it('rejects bad hyperparameters, steps and operands, naming them', async () => {
    const gpu = await testGpu();
    const state = randomState(10);
    await expect(adamW(gpu, state, { step: 0, hyper })).rejects.toThrow(/step must be an integer ≥ 1/);
    await expect(adamW(gpu, state, { step: 1, hyper: { ...hyper, beta2: 1 } })).rejects.toThrow(/beta2 must be a finite number in \[0, 1\)/);
    await expect(adamW(gpu, state, { step: 1, hyper: { ...hyper, lr: Number.NaN } })).rejects.toThrow(/lr must be a finite number/);
    await expect(adamW(gpu, state, { step: 1, hyper: { ...hyper, eps: 0 } })).rejects.toThrow(/eps must be a positive finite number/);
    await expect(adamW(gpu, state, { step: 1, hyper, clipScale: 2 })).rejects.toThrow(/clipScale must be a finite number in \[0, 1\]/);
    await expect(adamW(gpu, { ...state, m: new Float32Array(9) }, { step: 1, hyper })).rejects.toThrow(/adamW: m holds 9 values, expected 10/);
    const six = () => gpu.tensor([6]);
    const t = { params: six(), grads: six(), m: six(), v: six(), flags: gpu.tensor([1], 'u32'), step: gpu.tensor([ADAMW_STEP_SIZE]), clip: gpu.tensor([2]) };
    expect(() => recordAdamW(gpu.begin(), gpu, t)).toThrow(/params .* must hold a positive multiple of 4 values/);
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  });
});

describe('parameterFlags', () => {
  it('sets decay and frozen bits per 64-element block and leaves uncovered blocks at 0', () => {
    const f = parameterFlags(300, [
      { offset: 0, size: 70, decay: true },
      { offset: 192, size: 64, frozen: true, decay: true },
    ]);
    expect(Array.from(f)).toEqual([FLAG_DECAY, FLAG_DECAY, 0, FLAG_DECAY | FLAG_FROZEN, 0]);
  });

  it('refuses misaligned, out-of-range and overlapping ranges, naming the range', () => {
    expect(() => parameterFlags(300, [{ offset: 10, size: 5 }])).toThrow(/ranges\[0\].offset must be a non-negative multiple of 64/);
    expect(() => parameterFlags(100, [{ offset: 64, size: 64 }])).toThrow(/ranges\[0\] \(offset 64, size 64\) must lie within the 100 elements/);
    expect(() =>
      parameterFlags(300, [
        { offset: 0, size: 100 },
        { offset: 64, size: 10 },
      ]),
    ).toThrow(/ranges\[1\] overlaps ranges\[0\] in block 1/);
  });
});
