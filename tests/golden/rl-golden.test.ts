// The RL kernels (GPU) and their float64 references against PyTorch: GAE, whitening, PPO and DIS
// losses with autograd gradients, the clipped value loss, KL estimators, TRL's KTO loss and the group
// baselines, from tests/fixtures/rl-golden-v1.json. When this fails after a deliberate change to a
// formula or the fixture format, regenerate with `python3 tools/golden/rl_golden.py` (torch needed).

import { readFileSync } from 'node:fs';
import {
  actionCounts,
  aggregateRef,
  gae,
  gaeRef,
  groupBaselines,
  groupBaselinesRef,
  type KlEstimator,
  kl,
  klRef,
  kto,
  ktoRef,
  type LossAggregation,
  lossScales,
  policyLoss,
  policyLossRef,
  valueLoss,
  valueLossRef,
  WHITEN_EPS,
  whiten,
  whitenRef,
} from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';

type Numbers = number[];
const fixture = JSON.parse(readFileSync(new URL('../fixtures/rl-golden-v1.json', import.meta.url), 'utf8'));
const f32 = (a: Numbers) => Float32Array.from(a);
const u32 = (a: Numbers) => Uint32Array.from(a);
// Loss scales are float32 (they go to the GPU), so references that use them agree to ~6e-8 relative.
const REF = { atol: 1e-10, rtol: 2e-7 };
const GPU = { atol: 2e-6, rtol: 2e-5 };

describe('RL kernels against the PyTorch golden fixture', () => {
  it('has the expected version and cases', () => {
    expect(fixture.version).toBe(1);
    expect(fixture.gae.length).toBeGreaterThanOrEqual(2);
    expect(fixture.ppo.length).toBe(3);
  });

  it('GAE: reference and GPU (loop and scan) match PyTorch', async () => {
    const gpu = await testGpu();
    for (const c of fixture.gae) {
      const inputs = { rewards: f32(c.rewards), values: f32(c.values), actionMask: u32(c.actionMask), bootstrap: f32(c.bootstrap) };
      const options = { B: c.B, T: c.T, gamma: c.gamma, lambda: c.lambda, lambdaCritic: c.lambdaCritic, terminal: c.terminal, tokensAfter: c.tokensAfter };
      const ref = gaeRef({ ...inputs, terminal: c.terminal, tokensAfter: c.tokensAfter }, options);
      expect(ref.advantages).toBeAllClose(c.advantages, { ...REF, name: `${c.name} A (ref)` });
      expect(ref.returns).toBeAllClose(c.returns, { ...REF, name: `${c.name} R (ref)` });
      for (const variant of ['loop', 'scan'] as const) {
        const got = await gae(gpu, inputs, { ...options, variant });
        expect(got.advantages).toBeAllClose(c.advantages, { ...GPU, name: `${c.name} A (${variant})` });
        expect(got.returns).toBeAllClose(c.returns, { ...GPU, name: `${c.name} R (${variant})` });
      }
    }
  });

  it("whitening: reference and GPU match verl's masked_whiten", async () => {
    const gpu = await testGpu();
    const c = fixture.whiten;
    expect(whitenRef(c.values, c.mask, WHITEN_EPS).whitened).toBeAllClose(c.whitened, REF);
    expect((await whiten(gpu, { values: f32(c.values), mask: u32(c.mask) }, { B: c.B, T: c.T })).whitened).toBeAllClose(c.whitened, { atol: 1e-5, rtol: 1e-5 });
  });

  it('PPO clipped surrogate (asymmetric ε, dual clip, two reducers, slime golden): loss and autograd gradient', async () => {
    const gpu = await testGpu();
    for (const c of fixture.ppo) {
      const params = { kind: 'ppo' as const, epsLow: c.epsLow, epsHigh: c.epsHigh, dualClip: c.dualClip, B: c.B, T: c.T };
      const inputs = { logp: f32(c.logp), oldLogp: f32(c.oldLogp), advantages: f32(c.advantages), mask: u32(c.mask) };
      const scales = lossScales(actionCounts(inputs.mask, c.B, c.T), { mode: c.mode as LossAggregation });
      const ref = policyLossRef({ ...inputs, scales }, params);
      expect([ref.loss]).toBeAllClose([c.loss], { atol: 1e-7, rtol: 1e-6, name: `${c.mode} loss (ref)` });
      expect(ref.grad).toBeAllClose(c.grad, { atol: 1e-8, rtol: 1e-6, name: `${c.mode} grad (ref)` });
      const got = await policyLoss(gpu, inputs, { ...params, mode: c.mode });
      expect([got.loss]).toBeAllClose([c.loss], { ...GPU, name: `${c.mode} loss (GPU)` });
      expect(got.perToken).toBeAllClose(c.perToken, { ...GPU, name: `${c.mode} per token (GPU)` });
      expect(got.grad).toBeAllClose(c.grad, { ...GPU, name: `${c.mode} grad (GPU)` });
    }
  });

  it("SAO's DIS loss with a detached weight: loss and autograd gradient", async () => {
    const gpu = await testGpu();
    for (const c of fixture.dis) {
      const params = { kind: 'dis' as const, epsLow: c.epsLow, epsHigh: c.epsHigh, B: c.B, T: c.T };
      const inputs = { logp: f32(c.logp), oldLogp: f32(c.oldLogp), advantages: f32(c.advantages), mask: u32(c.mask) };
      const ref = policyLossRef({ ...inputs, scales: lossScales(actionCounts(inputs.mask, c.B, c.T), { mode: 'token-mean' }) }, params);
      expect(ref.grad).toBeAllClose(c.grad, { atol: 1e-8, rtol: 1e-6 });
      const got = await policyLoss(gpu, inputs, params);
      expect([got.loss]).toBeAllClose([c.loss], GPU);
      expect(got.grad).toBeAllClose(c.grad, GPU);
    }
  });

  it('clipped value loss: loss and autograd gradient', async () => {
    const gpu = await testGpu();
    for (const c of fixture.value) {
      const inputs = { values: f32(c.values), oldValues: f32(c.oldValues), returns: f32(c.returns), mask: u32(c.mask) };
      const ref = valueLossRef(
        { ...inputs, scales: lossScales(actionCounts(inputs.mask, c.B, c.T), { mode: 'token-mean' }) },
        { B: c.B, T: c.T, clip: c.clip },
      );
      expect([ref.loss]).toBeAllClose([c.loss], REF);
      expect(ref.grad).toBeAllClose(c.grad, REF);
      const got = await valueLoss(gpu, inputs, { B: c.B, T: c.T, clip: c.clip });
      expect([got.loss]).toBeAllClose([c.loss], GPU);
      expect(got.grad).toBeAllClose(c.grad, GPU);
    }
  });

  it('KL estimators k1, k2, k3: value and autograd gradient', async () => {
    const gpu = await testGpu();
    for (const c of fixture.kl) {
      const inputs = { logp: f32(c.logp), refLogp: f32(c.refLogp), mask: u32(c.mask) };
      const estimator = c.estimator as KlEstimator;
      const ref = klRef({ ...inputs, scales: lossScales(actionCounts(inputs.mask, c.B, c.T), { mode: 'token-mean' }) }, { B: c.B, T: c.T, estimator });
      expect([ref.kl]).toBeAllClose([c.kl], { ...REF, name: estimator });
      expect(ref.grad).toBeAllClose(c.grad, { ...REF, name: estimator });
      const got = await kl(gpu, inputs, { B: c.B, T: c.T, estimator });
      expect([got.kl]).toBeAllClose([c.kl], { ...GPU, name: estimator });
      expect(got.perToken).toBeAllClose(c.perToken, { ...GPU, name: estimator });
      expect(got.grad).toBeAllClose(c.grad, { ...GPU, name: estimator });
    }
  });

  it("KTO: TRL's loss, z0 and gradient; the detach removes a real gradient from the mismatched pass", async () => {
    const gpu = await testGpu();
    const c = fixture.kto;
    const inputs = {
      logp: f32(c.logp),
      refLogp: f32(c.refLogp),
      mask: u32(c.mask),
      klLogp: f32(c.klLogp),
      klRefLogp: f32(c.klRefLogp),
      klMask: u32(c.klMask),
      desirable: u32(c.desirable),
    };
    const params = { B: c.B, T: c.T, beta: c.beta, lambdaD: c.lambdaD, lambdaU: c.lambdaU };
    const ref = ktoRef(inputs, params);
    expect([ref.loss, ref.z0]).toBeAllClose([c.loss, c.z0], { atol: 1e-9, rtol: 1e-8 });
    expect(ref.grad).toBeAllClose(c.grad, REF);
    const got = await kto(gpu, inputs, params);
    expect([got.loss, got.z0]).toBeAllClose([c.loss, c.z0], GPU);
    expect(got.rewards).toBeAllClose(c.rewards, GPU);
    expect(got.grad).toBeAllClose(c.grad, GPU);
    expect(c.z0).toBeGreaterThan(0);
    expect(Math.max(...c.klGradIfNotDetached.map(Math.abs))).toBeGreaterThan(1e-3);
  });

  it('group baselines: GRPO (torch.std), Dr.GRPO and RLOO', async () => {
    const gpu = await testGpu();
    const c = fixture.groups;
    for (const estimator of ['grpo', 'dr-grpo', 'rloo'] as const) {
      expect(groupBaselinesRef(c.rewards, c.groupIds, estimator)).toBeAllClose(c[estimator], { atol: 1e-9, rtol: 1e-8, name: estimator });
      const got = await groupBaselines(gpu, { rewards: f32(c.rewards), groupIds: u32(c.groupIds) }, { estimator });
      expect(got.advantages).toBeAllClose(c[estimator], { atol: 5e-6, rtol: 1e-5, name: estimator });
    }
  });

  it('token-mean loss of the PPO fixture equals the reducer reference', () => {
    const c = fixture.ppo[0];
    expect([aggregateRef(c.perToken, c.mask, c.B, c.T, { mode: 'token-mean' })]).toBeAllClose([c.loss], { atol: 1e-12, rtol: 1e-10 });
  });
});
