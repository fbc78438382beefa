// DIS through the update step (docs/algorithms/sao-dis.md §1): with the weight detached, a token inside
// the band moves the policy exactly as PPO's unclipped surrogate ρ·A does (−ρ·A per token), so at lag 0
// and one epoch, where every ratio is inside both PPO's clip and the DIS band, one DIS step and one
// PPO step from the same weights land on the same weights. Outside the band a token leaves the
// gradient whatever the sign of A, which PPO's one-sided clip does not do. On the GPU (SwiftShader in
// CI), tiny shapes.
//
// Shape legend:  B rows · T positions · V vocab

import { SeededRandom } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { LossTerm } from '../algorithms/algorithm.ts';
import type { GptConfig } from '../model/config.ts';
import { Gpt } from '../model/gpt.ts';
import { AdamW } from '../model/optimizer.ts';
import { type Minibatch, type StepOptions, UpdateSteps } from './update-steps.ts';

const B = 2;
const T = 4;
const LM: GptConfig = { vocabSize: 8, contextLength: 8, layers: 1, heads: 1, width: 8, head: 'lm' };
// SGD-like: no clipping, so the step is proportional to the gradient and any gradient difference shows.
const OPTIONS: StepOptions = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 0, temperature: 1 };

/** A minibatch whose π_old and π_roll are the same (lag 0), `shift` nats from the untrained model's ≈ −log V. */
function minibatch(shift: number): Minibatch {
  const rng = new SeededRandom(7);
  const behaviour = Float32Array.from({ length: B * T }, () => -Math.log(LM.vocabSize) + shift + 0.1 * rng.normal());
  return {
    B,
    T,
    inputs: Uint32Array.from({ length: B * T }, (_, i) => i % LM.vocabSize),
    targets: Uint32Array.from({ length: B * T }, (_, i) => (i * 3 + 1) % LM.vocabSize),
    mask: Uint32Array.from([0, 1, 1, 1, 0, 1, 1, 0]),
    scales: new Float32Array(B).fill(1 / 5),
    // Both signs, so a band mask that depended on the sign would show.
    advantages: Float32Array.from([0, 1.5, -0.7, 0.4, 0, -1.2, 0.9, 0]),
    oldLogp: behaviour,
    rolloutLogp: behaviour.slice(),
    refLogp: behaviour.slice(),
    returns: new Float32Array(B * T),
    oldValues: new Float32Array(B * T),
  };
}

async function stepOnce(mb: Minibatch, terms: readonly LossTerm[]) {
  const gpu = await testGpu();
  const model = Gpt.init(gpu, LM, 5, 'policy');
  const optimizer = new AdamW(model);
  const steps = new UpdateSteps(gpu);
  const before = await model.readParameters();
  try {
    const metrics = await steps.step(model, optimizer, mb, terms, OPTIONS);
    // The step leaves the gradient it applied in `grads` (AdamW's first step alone is ≈ lr·sign(g)).
    return { metrics, before, after: await model.readParameters(), grads: (await gpu.read(model.grads)) as Float32Array };
  } finally {
    steps.destroy();
    optimizer.destroy();
    model.destroy();
  }
}

describe('DIS against PPO through the update step', () => {
  it('inside the band, at lag 0 and one epoch: the same step as PPO’s unclipped surrogate', async () => {
    const mb = minibatch(0);
    // ε_low = 1, ε_high = 10: PPO's clip range (0, 11) cannot bind on ratios near 1.
    const ppo = await stepOnce(mb, [{ kind: 'ppo-clip', epsLow: 1, epsHigh: 10, dualClip: 0 }]);
    const dis = await stepOnce(mb, [{ kind: 'dis', epsLow: 0.5, epsHigh: 1 }]);
    expect(ppo.metrics['policy/clip_frac']).toBe(0);
    expect(dis.metrics['policy/clip_frac']).toBe(0);
    expect(dis.metrics['policy/grad_norm']).toBeGreaterThan(0);
    expect(dis.metrics['policy/grad_norm']).toBeCloseTo(ppo.metrics['policy/grad_norm'] as number, 6);
    expect(dis.after).not.toEqual(dis.before);
    expect(dis.grads).toBeAllClose(ppo.grads, { atol: 1e-8, rtol: 1e-5, name: 'parameter gradients' });
    expect(dis.after).toBeAllClose(ppo.after, { atol: 1e-7, rtol: 1e-6, name: 'weights after one step' });
    // The losses differ (−sg(w)·A·ℓ against −ρ·A); only their gradients agree.
    expect(dis.metrics['policy/loss']).not.toBeCloseTo(ppo.metrics['policy/loss'] as number, 3);
  });

  it('outside the band every token leaves the gradient, whatever the sign of its advantage', async () => {
    // π_roll about e^−2 of the model's probability: ratios near 7.4, above 1 + ε_high = 2.
    const mb = minibatch(-2);
    const dis = await stepOnce(mb, [{ kind: 'dis', epsLow: 0.5, epsHigh: 1 }]);
    expect(dis.metrics['policy/clip_frac']).toBe(1);
    expect(dis.metrics['policy/grad_norm']).toBe(0);
    expect(dis.after).toEqual(dis.before);
    expect(dis.grads.every((g) => g === 0)).toBe(true);
    // PPO's clip stops only the tokens whose advantage favours the move: the negative ones still train.
    const ppo = await stepOnce(mb, [{ kind: 'ppo-clip', epsLow: 0.5, epsHigh: 1, dualClip: 0 }]);
    expect(ppo.metrics['policy/grad_norm']).toBeGreaterThan(0);
    expect(ppo.after).not.toEqual(ppo.before);
  });
});
