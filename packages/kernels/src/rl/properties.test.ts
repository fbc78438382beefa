// Property tests (fast-check) over random shapes, masks (all-masked rows, single tokens, groups of one)
// and extreme values: log-probs down to −1e4, rewards and values up to ±1e6. Most properties run on
// the float64 references (cheap); a handful of runs per kernel go through the GPU, because SwiftShader
// executes kernels on the CPU. Seeds are fixed so CI is reproducible; a failure prints its seed and
// the shrunk counterexample.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { aggregateRef } from './aggregate/aggregate.ref.ts';
import { actionCounts, LOSS_AGGREGATIONS, lossScales } from './aggregate/scales.ts';
import { gaeRef } from './gae/gae.ref.ts';
import { gae } from './gae/gae.ts';
import { groupBaselinesRef } from './group-baselines/group-baselines.ref.ts';
import { groupBaselines } from './group-baselines/group-baselines.ts';
import { tokenKlRef } from './kl/kl.ref.ts';
import { ktoRef } from './kto/kto.ref.ts';
import { buildSpans, spanKtoRef } from './kto/span-kto.ref.ts';
import { policyLossRef } from './policy-loss/policy-loss.ref.ts';
import { policyLoss } from './policy-loss/policy-loss.ts';
import { whitenRef } from './whiten/whiten.ref.ts';

const REF_RUNS = { seed: 20261130, numRuns: 150 };
const GPU_RUNS = { seed: 20261130, numRuns: 5 };
const BIG = Math.fround(1e6);

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const floats = (n: number, lo: number, hi: number) =>
  fc.float32Array({ minLength: n, maxLength: n, min: Math.fround(lo), max: Math.fround(hi), noNaN: true, noDefaultInfinity: true });

/** A [B, T] mask where each row is, by chance, all masked, a single token, or random. */
const maskOf = (B: number, T: number) =>
  fc
    .array(fc.tuple(fc.constantFrom('empty', 'single', 'random', 'random'), fc.array(fc.boolean(), { minLength: T, maxLength: T }), fc.nat(T - 1)), {
      minLength: B,
      maxLength: B,
    })
    .map((rows) => {
      const m = new Uint32Array(B * T);
      rows.forEach(([kind, bits, at], b) => {
        if (kind === 'single') m[b * T + at] = 1;
        else if (kind === 'random') for (const [t, bit] of bits.entries()) m[b * T + t] = bit ? 1 : 0;
      });
      return m;
    });

const gaeCase = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 40 })).chain(([B, T]) =>
  fc.record({
    B: fc.constant(B),
    T: fc.constant(T),
    rewards: floats(B * T, -BIG, BIG),
    values: floats(B * T, -BIG, BIG),
    actionMask: maskOf(B, T),
    bootstrap: floats(B, -BIG, BIG),
    terminal: fc.array(fc.constantFrom(0, 1), { minLength: B, maxLength: B }),
    tokensAfter: fc.array(fc.nat(5000), { minLength: B, maxLength: B }),
    lambda: fc.array(unit, { minLength: B, maxLength: B }),
    lambdaCritic: fc.array(unit, { minLength: B, maxLength: B }),
    gamma: unit,
  }),
);

const allFinite = (a: ArrayLike<number>) => Array.prototype.every.call(a, Number.isFinite);

describe('properties of the references', () => {
  it('GAE: finite outputs, zeros off the mask, values on observations never matter', () => {
    fc.assert(
      fc.property(gaeCase, fc.integer(), (c, salt) => {
        const want = gaeRef(c, c);
        expect(allFinite(want.advantages) && allFinite(want.returns)).toBe(true);
        const noisy = { ...c, values: c.values.map((v, i) => (c.actionMask[i] ? v : v + salt)) };
        const again = gaeRef(noisy, c);
        for (let i = 0; i < c.B * c.T; i++) {
          if (!c.actionMask[i]) expect(want.advantages[i] === 0 && want.returns[i] === 0).toBe(true);
          expect(again.advantages[i]).toBe(want.advantages[i]);
          expect(again.returns[i]).toBe(want.returns[i]);
        }
      }),
      REF_RUNS,
    );
  });

  it('GAE with γ = λ = 1 and no observation rewards: returns are the reward-to-go', () => {
    fc.assert(
      fc.property(gaeCase, (c) => {
        const rewards = c.rewards.map((r, i) => (c.actionMask[i] ? r : 0));
        const ones = Array(c.B).fill(1);
        const want = gaeRef({ ...c, rewards, terminal: ones }, { ...c, gamma: 1, lambda: ones, lambdaCritic: ones });
        for (let b = 0; b < c.B; b++) {
          let toGo = 0;
          for (let t = c.T - 1; t >= 0; t--) {
            const i = b * c.T + t;
            toGo += rewards[i];
            if (c.actionMask[i]) expect(want.returns[i]).toBeCloseTo(toGo, -Math.log10(Math.max(1, Math.abs(toGo)) * 1e-9));
          }
        }
      }),
      REF_RUNS,
    );
  });

  it('whitening: finite, zeros off the mask, standardized on the mask', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).chain((n) => fc.tuple(floats(n, -BIG, BIG), maskOf(1, n))),
        ([values, mask]) => {
          const { whitened, variance } = whitenRef(values, mask, 1e-8);
          expect(allFinite(whitened)).toBe(true);
          const kept = Array.from(whitened).filter((_, i) => mask[i]);
          if (kept.length >= 2 && variance > 1) {
            const mean = kept.reduce((a, x) => a + x, 0) / kept.length;
            expect(Math.abs(mean)).toBeLessThan(1e-6);
          }
          for (let i = 0; i < mask.length; i++) if (!mask[i]) expect(whitened[i]).toBe(0);
        },
      ),
      REF_RUNS,
    );
  });

  it('policy losses: finite loss and gradient for extreme log-probs and advantages; DIS never keeps an out-of-band token', () => {
    const policyCase = fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 30 })).chain(([B, T]) =>
      fc.record({
        B: fc.constant(B),
        T: fc.constant(T),
        logp: floats(B * T, -1e4, 0),
        oldLogp: floats(B * T, -1e4, 0),
        advantages: floats(B * T, -BIG, BIG),
        mask: maskOf(B, T),
        kind: fc.constantFrom('ppo' as const, 'dis' as const),
        epsLow: unit,
        epsHigh: fc.double({ min: 0, max: 10, noNaN: true }),
        dual: fc.constantFrom(0, 3),
      }),
    );
    fc.assert(
      fc.property(policyCase, (c) => {
        const params = { kind: c.kind, epsLow: c.epsLow, epsHigh: c.epsHigh, dualClip: c.kind === 'ppo' ? c.dual : 0, B: c.B, T: c.T };
        const r = policyLossRef({ ...c, scales: lossScales(actionCounts(c.mask, c.B, c.T), { mode: 'token-mean' }) }, params);
        expect(Number.isFinite(r.loss) && allFinite(r.grad) && allFinite(r.perToken)).toBe(true);
        for (const f of [r.lowFraction, r.highFraction, r.dualFraction]) expect(f >= 0 && f <= 1).toBe(true);
        if (c.kind === 'dis') {
          for (let i = 0; i < c.B * c.T; i++) {
            const ratio = Math.exp(Math.min(20, Math.max(-20, c.logp[i] - c.oldLogp[i])));
            if (ratio <= 1 - c.epsLow || ratio >= 1 + c.epsHigh) expect(r.grad[i] === 0).toBe(true);
          }
        }
      }),
      REF_RUNS,
    );
  });

  it('k3 ≥ 0 and finite for every log-ratio; k1 and k3 have the gradients 1 and 1 − r', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 1e4, noNaN: true }), (d) => {
        const k3 = tokenKlRef(d, 0, 'k3');
        expect(k3.value >= 0 && Number.isFinite(k3.value) && Number.isFinite(k3.dvalue)).toBe(true);
        if (Math.abs(d) < 20) expect(k3.dvalue).toBeCloseTo(1 - Math.exp(-d), 8);
        expect(tokenKlRef(d, 0, 'k1').dvalue).toBe(1);
      }),
      REF_RUNS,
    );
  });

  it('loss scales: weights sum to one over action tokens (all reducers but sum-norm) and token-mean / per-rollout-mean are split-invariant', () => {
    const splitCase = fc.array(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(splitCase, fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 120, maxLength: 120 }), (rollouts, losses) => {
        // Each rollout is a list of segment lengths; the unsplit batch has one row per rollout.
        const T = 30;
        const rows = (split: boolean) =>
          split ? rollouts.flatMap((segs, r) => segs.map((n) => ({ r, n }))) : rollouts.map((segs, r) => ({ r, n: segs.reduce((a, x) => a + x, 0) }));
        const run = (split: boolean, mode: 'token-mean' | 'per-rollout-mean') => {
          const list = rows(split);
          const mask = new Uint32Array(list.length * T);
          const values = new Float64Array(list.length * T);
          const next = new Map<number, number>();
          list.forEach(({ r, n }, b) => {
            for (let t = 0; t < n; t++) {
              const k = next.get(r) ?? 0;
              next.set(r, k + 1);
              mask[b * T + t] = 1;
              values[b * T + t] = losses[(r * 24 + k) % losses.length];
            }
          });
          return aggregateRef(values, mask, list.length, T, { mode, rolloutIds: list.map((x) => x.r) });
        };
        for (const mode of ['token-mean', 'per-rollout-mean'] as const) expect(run(true, mode)).toBeCloseTo(run(false, mode), 9);
        const counts = rows(true).map((x) => x.n);
        for (const mode of LOSS_AGGREGATIONS.filter((m) => m !== 'seq-mean-token-sum-norm')) {
          const scales = lossScales(counts, { mode, rolloutIds: rows(true).map((x) => x.r) });
          const total = counts.reduce((a, n, b) => a + n * scales[b], 0);
          expect(total).toBeCloseTo(counts.some((n) => n > 0) ? 1 : 0, 6);
        }
      }),
      REF_RUNS,
    );
  });

  it('group baselines: singletons get 0, group sums are 0, outputs finite for extreme rewards', () => {
    const groupCase = fc.integer({ min: 1, max: 40 }).chain((n) => fc.tuple(floats(n, -BIG, BIG), fc.array(fc.nat(8), { minLength: n, maxLength: n })));
    fc.assert(
      fc.property(groupCase, fc.constantFrom('grpo' as const, 'dr-grpo' as const, 'rloo' as const), ([rewards, ids], estimator) => {
        const adv = groupBaselinesRef(rewards, ids, estimator);
        expect(allFinite(adv)).toBe(true);
        const sums = new Map<number, { s: number; n: number; scale: number }>();
        ids.forEach((g, i) => {
          const e = sums.get(g) ?? { s: 0, n: 0, scale: 0 };
          sums.set(g, { s: e.s + adv[i], n: e.n + 1, scale: Math.max(e.scale, Math.abs(adv[i])) });
        });
        for (const [i, g] of ids.entries()) if (sums.get(g)?.n === 1) expect(adv[i]).toBe(0);
        for (const { s, scale } of sums.values()) expect(Math.abs(s)).toBeLessThanOrEqual(1e-9 * Math.max(1, scale) * ids.length);
      }),
      REF_RUNS,
    );
  });

  it('KTO and span-KTO: finite, bounded losses for extreme log-probs', () => {
    const ktoCase = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 20 })).chain(([B, T]) =>
      fc.record({
        B: fc.constant(B),
        T: fc.constant(T),
        logp: floats(B * T, -1e4, 0),
        refLogp: floats(B * T, -1e4, 0),
        mask: maskOf(B, T),
        klLogp: floats(B * T, -1e4, 0),
        klRefLogp: floats(B * T, -1e4, 0),
        klMask: maskOf(B, T),
        desirable: fc.array(fc.constantFrom(0, 1), { minLength: B, maxLength: B }),
        polarity: fc.array(fc.constantFrom(-1, 0, 1), { minLength: B * T, maxLength: B * T }),
        beta: fc.double({ min: 0, max: 10, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(ktoCase, (c) => {
        const k = ktoRef(c, { ...c, lambdaD: 1, lambdaU: 1.5 });
        expect(Number.isFinite(k.loss) && k.loss >= 0 && k.loss <= 1.5 && k.z0 >= 0 && allFinite(k.grad)).toBe(true);
        const s = spanKtoRef(c, buildSpans(c.polarity, c.mask, c.B, c.T), { beta: c.beta, lambdaW: 1, lambdaL: 1, alpha: 0.9, zRef: 0 }, c.B * c.T);
        expect(Number.isFinite(s.loss) && Number.isFinite(s.zRef) && allFinite(s.grad)).toBe(true);
        expect(s.prefLoss >= -1 && s.prefLoss <= 0).toBe(true);
      }),
      REF_RUNS,
    );
  });
});

describe('properties on the GPU (a handful of runs each)', () => {
  it('GAE: loop and scan agree with the reference on random shapes, masks and extreme values', async () => {
    const gpu = await testGpu();
    await fc.assert(
      fc.asyncProperty(gaeCase, async (c) => {
        const want = gaeRef(c, c);
        let scale = 1;
        for (let i = 0; i < want.advantages.length; i++) scale = Math.max(scale, Math.abs(want.advantages[i]), Math.abs(want.returns[i]));
        for (const variant of ['loop', 'scan'] as const) {
          const got = await gae(gpu, { ...c, actionMask: c.actionMask }, { ...c, variant });
          expect(allFinite(got.advantages) && allFinite(got.returns)).toBe(true);
          expect(got.advantages).toBeAllClose(want.advantages, { atol: 1e-5 * scale, rtol: 0 });
          expect(got.returns).toBeAllClose(want.returns, { atol: 1e-5 * scale, rtol: 0 });
        }
      }),
      GPU_RUNS,
    );
  });

  it('policy loss: no NaN or Inf from the GPU for extreme inputs', async () => {
    const gpu = await testGpu();
    const c = fc.integer({ min: 1, max: 300 }).chain((n) => fc.tuple(floats(n, -1e4, 0), floats(n, -1e4, 0), floats(n, -BIG, BIG), maskOf(1, n)));
    await fc.assert(
      fc.asyncProperty(c, fc.constantFrom('ppo' as const, 'dis' as const), async ([logp, oldLogp, advantages, mask], kind) => {
        const r = await policyLoss(gpu, { logp, oldLogp, advantages, mask }, { kind, epsLow: 0.2, epsHigh: 0.28, B: 1, T: logp.length });
        expect(Number.isFinite(r.loss) && allFinite(r.grad) && allFinite(r.perToken)).toBe(true);
      }),
      GPU_RUNS,
    );
  });

  it('group baselines: the GPU matches the reference with groups of one and extreme rewards', async () => {
    const gpu = await testGpu();
    const c = fc.integer({ min: 1, max: 64 }).chain((n) => fc.tuple(floats(n, -BIG, BIG), fc.array(fc.nat(10), { minLength: n, maxLength: n })));
    await fc.assert(
      fc.asyncProperty(c, async ([rewards, ids]) => {
        const groupIds = Uint32Array.from(ids);
        for (const estimator of ['grpo', 'rloo'] as const) {
          const got = await groupBaselines(gpu, { rewards, groupIds }, { estimator });
          const want = groupBaselinesRef(rewards, groupIds, estimator);
          expect(allFinite(got.advantages)).toBe(true);
          const scale = Math.max(1, ...Array.from(want, Math.abs));
          expect(got.advantages).toBeAllClose(want, { atol: 1e-5 * scale, rtol: 1e-4 });
        }
      }),
      GPU_RUNS,
    );
  });
});
