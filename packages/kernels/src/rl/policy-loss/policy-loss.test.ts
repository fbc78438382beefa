import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { actionCounts, lossScales } from '../aggregate/scales.ts';
import { type PolicyLossParams, policyLossRef } from './policy-loss.ref.ts';
import { policyLoss } from './policy-loss.ts';

const rng = new SeededRandom(41);

/** Log-ratios away from the band edges (f32 and f64 must agree on which side a token falls). */
function randomCase(B: number, T: number, params: PolicyLossParams) {
  const N = B * T;
  const oldLogp = rng.uniformArray(N, -4, -0.01);
  const logp = new Float32Array(N);
  for (let i = 0; i < N; i++) {
    let d = 0;
    do d = (rng.next() - 0.5) * 1.6;
    while (Math.abs(Math.exp(d) - (1 - params.epsLow)) < 1e-3 || Math.abs(Math.exp(d) - (1 + params.epsHigh)) < 1e-3);
    logp[i] = oldLogp[i] + d;
  }
  const advantages = rng.uniformArray(N, -2, 2);
  const mask = Uint32Array.from({ length: N }, () => (rng.next() < 0.75 ? 1 : 0));
  return { logp, oldLogp, advantages, mask };
}

const SETTINGS: PolicyLossParams[] = [
  { kind: 'ppo', epsLow: 0.2, epsHigh: 0.28 },
  { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, dualClip: 3 },
  { kind: 'dis', epsLow: 0.3, epsHigh: 0.5 },
];

describe('policy losses', () => {
  for (const params of SETTINGS) {
    it(`${params.kind} ${JSON.stringify(params)}: GPU matches the float64 reference`, async () => {
      const gpu = await testGpu();
      const B = 5;
      const T = 87;
      const c = randomCase(B, T, params);
      for (const mode of ['token-mean', 'seq-mean-token-mean'] as const) {
        const got = await policyLoss(gpu, c, { ...params, B, T, mode });
        const want = policyLossRef({ ...c, scales: lossScales(actionCounts(c.mask, B, T), { mode }) }, { ...params, B, T });
        expect(got.perToken).toBeAllClose(want.perToken, { atol: 1e-6, rtol: 1e-5, name: 'perToken' });
        expect(got.grad).toBeAllClose(want.grad, { atol: 1e-7, rtol: 1e-5, name: 'grad' });
        expect([got.loss, got.lowFraction, got.highFraction, got.dualFraction]).toBeAllClose(
          [want.loss, want.lowFraction, want.highFraction, want.dualFraction],
          { atol: 1e-6, rtol: 1e-5, name: 'loss and fractions' },
        );
        expect(got.lowFraction + got.highFraction).toBeGreaterThan(0); // the case exercises the clip
      }
    });
  }

  it("slime's dual-clip golden: ρ = [2, 2, 0.5], A = [2, −2, 2], ε = 0.2, c = 1.5 → [−2.4, 3, −1]", async () => {
    const gpu = await testGpu();
    const got = await policyLoss(
      gpu,
      {
        logp: Float32Array.of(Math.log(2), Math.log(2), Math.log(0.5)),
        oldLogp: new Float32Array(3),
        advantages: Float32Array.of(2, -2, 2),
        mask: Uint32Array.of(1, 1, 1),
      },
      { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, dualClip: 1.5, B: 1, T: 3 },
    );
    expect(got.perToken).toBeAllClose([-2.4, 3, -1], { atol: 1e-6 });
    expect(got.grad[0] === 0 && got.grad[1] === 0).toBe(true); // clipped, dual-clipped
    expect(got.grad[2]).toBeCloseTo(-(2 * 0.5) / 3, 6);
    expect([got.highFraction, got.dualFraction]).toBeAllClose([1 / 3, 1 / 3]);
  });

  it('DIS band edges are strict: a ratio of exactly 1 − ε_low or 1 + ε_high is masked', async () => {
    const gpu = await testGpu();
    // ℓ = ℓ_roll gives ρ = exp(0) = 1 exactly; with ε_low = 0 (or ε_high = 0) it sits on the edge.
    const inputs = { logp: Float32Array.of(-0.5, -1.5), oldLogp: Float32Array.of(-0.5, -1.5), advantages: Float32Array.of(1, -1), mask: Uint32Array.of(1, 1) };
    const onLow = await policyLoss(gpu, inputs, { kind: 'dis', epsLow: 0, epsHigh: 0.5, B: 1, T: 2 });
    expect(onLow.grad.every((g) => g === 0)).toBe(true);
    expect(onLow.lowFraction).toBe(1);
    const onHigh = await policyLoss(gpu, inputs, { kind: 'dis', epsLow: 0.5, epsHigh: 0, B: 1, T: 2 });
    expect(onHigh.grad.every((g) => g === 0)).toBe(true);
    expect(onHigh.highFraction).toBe(1);
    const inside = await policyLoss(gpu, inputs, { kind: 'dis', epsLow: 1e-3, epsHigh: 1e-3, B: 1, T: 2 });
    expect(Array.from(inside.grad)).toEqual([-0.5, 0.5]); // −w·A with w = 1, scale 1/2
    // The float64 reference at exact edges (r − 1 and 1 − r are exact in binary for r in [0.5, 2]).
    for (const r of [0.5, 0.75, 1.25, 2]) {
      const logp = Math.log(r);
      const rr = Math.exp(logp);
      const edges = rr < 1 ? { epsLow: 1 - rr, epsHigh: 1 } : { epsLow: 0.5, epsHigh: rr - 1 };
      const ref = policyLossRef({ logp: [logp], oldLogp: [0], advantages: [1], mask: [1], scales: [1] }, { kind: 'dis', ...edges, B: 1, T: 1 });
      expect(ref.grad[0] === 0).toBe(true);
    }
  });

  it('DIS masks out-of-band tokens whatever the sign of A; PPO keeps the unfavoured side live', async () => {
    const gpu = await testGpu();
    const inputs = { logp: Float32Array.of(Math.log(3)), oldLogp: Float32Array.of(0), advantages: Float32Array.of(-1), mask: Uint32Array.of(1) };
    const dis = await policyLoss(gpu, inputs, { kind: 'dis', epsLow: 0.2, epsHigh: 0.2, B: 1, T: 1 });
    const ppo = await policyLoss(gpu, inputs, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, B: 1, T: 1 });
    expect(dis.grad[0] === 0).toBe(true);
    expect(ppo.grad[0]).toBeCloseTo(3, 5); // −A·ρ: PPO clips only in the direction A favours
  });

  it('the reference gradient is the derivative of the reference loss (central differences)', () => {
    const B = 3;
    const T = 11;
    for (const params of SETTINGS.filter((p) => p.kind === 'ppo')) {
      const c = randomCase(B, T, params);
      const scales = lossScales(actionCounts(c.mask, B, T), { mode: 'token-mean' });
      const base = policyLossRef({ ...c, scales }, { ...params, B, T });
      const h = 1e-6;
      for (let i = 0; i < B * T; i++) {
        const plus = Float64Array.from(c.logp);
        const minus = Float64Array.from(c.logp);
        plus[i] += h;
        minus[i] -= h;
        const numeric =
          (policyLossRef({ ...c, logp: plus, scales }, { ...params, B, T }).loss - policyLossRef({ ...c, logp: minus, scales }, { ...params, B, T }).loss) /
          (2 * h);
        expect(numeric).toBeCloseTo(base.grad[i], 6);
      }
    }
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const c = { logp: new Float32Array(2), oldLogp: new Float32Array(2), advantages: new Float32Array(2), mask: Uint32Array.of(1, 1) };
    const shape = { B: 1, T: 2 };
    await expect(policyLoss(gpu, c, { kind: 'ppo', epsLow: 1.2, epsHigh: 0.2, ...shape })).rejects.toThrow(/epsLow/);
    await expect(policyLoss(gpu, c, { kind: 'ppo', epsLow: 0.2, epsHigh: -1, ...shape })).rejects.toThrow(/epsHigh/);
    await expect(policyLoss(gpu, c, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, dualClip: 0.5, ...shape })).rejects.toThrow(/dualClip/);
    await expect(policyLoss(gpu, c, { kind: 'dis', epsLow: 0.2, epsHigh: 0.2, dualClip: 3, ...shape })).rejects.toThrow(/dualClip applies to ppo only/);
    await expect(policyLoss(gpu, { ...c, logp: Float32Array.of(0, Number.NaN) }, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, ...shape })).rejects.toThrow(
      /logp\[1\] is NaN/,
    );
    await expect(policyLoss(gpu, { ...c, advantages: new Float32Array(3) }, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, ...shape })).rejects.toThrow(
      /advantages holds 3/,
    );
    await expect(policyLoss(gpu, c, { kind: 'grpo' as 'ppo', epsLow: 0.2, epsHigh: 0.2, ...shape })).rejects.toThrow(/kind/);
  });
});
