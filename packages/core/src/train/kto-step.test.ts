// KTO through the trainer's own path: rows → Scorer (with the mismatched pairs) → the update step's
// `kto` term, checked against the kernels' float64 reference (kernels/src/rl/kto/kto.ref.ts) on a
// tiny batch: the loss and z0 the step reports, and its gradient, whose norm must equal that of the
// reference's dL/dℓ pushed through the same model by a PPO-clip step at ratio 1 (where the
// surrogate's gradient is −A·m·scale, so A = −dL/dr_b gives the same dL/dℓ). On the GPU (SwiftShader in CI).
//
// Shape legend:  B rows · T positions · V vocab

import { ktoRef } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { LossTerm } from '../algorithms/algorithm.ts';
import type { GptConfig } from '../model/config.ts';
import { Gpt } from '../model/gpt.ts';
import { AdamW } from '../model/optimizer.ts';
import { mismatchedRows } from './mismatched-rows.ts';
import type { TrainingRows } from './rows.ts';
import { Scorer } from './scoring.ts';
import { type Minibatch, type StepOptions, UpdateSteps } from './update-steps.ts';

const B = 3;
const T = 6;
const CONFIG: GptConfig = { vocabSize: 9, contextLength: 8, layers: 1, heads: 2, width: 16, head: 'lm' };
const OPTIONS: StepOptions = { lr: 1e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 0, temperature: 1 };
const PARAMS = { beta: 0.5, lambdaD: 1.3, lambdaU: 0.7 };
const KTO: LossTerm = { kind: 'kto', beta: PARAMS.beta, desirableWeight: PARAMS.lambdaD, undesirableWeight: PARAMS.lambdaU };

/** Three rows: prompts of 2–3 tokens, completions of 2–3 tokens, padding after; rows 0 and 2 desirable. */
function rows(): TrainingRows {
  const sequences = [
    { tokens: [1, 2, 3, 4, 5], prompt: 2 },
    { tokens: [2, 6, 7, 8, 1, 3], prompt: 3 },
    { tokens: [3, 3, 5, 6], prompt: 2 },
  ];
  const r: TrainingRows = {
    B,
    T,
    inputs: new Uint32Array(B * T),
    targets: new Uint32Array(B * T),
    actionMask: new Uint32Array(B * T),
    rewards: new Float32Array(B * T),
    rolloutLogp: new Float32Array(B * T),
    terminal: new Uint32Array(B).fill(1),
    groupIds: Uint32Array.from([0, 1, 2]),
    rolloutIds: Uint32Array.from([0, 1, 2]),
    tokensAfter: new Uint32Array(B),
  };
  sequences.forEach(({ tokens, prompt }, b) => {
    for (let t = 0; t + 1 < tokens.length; t++) {
      r.inputs[b * T + t] = tokens[t];
      r.targets[b * T + t] = tokens[t + 1];
      r.actionMask[b * T + t] = t + 1 >= prompt ? 1 : 0;
    }
  });
  return r;
}

describe('mismatched pairs', () => {
  it("row b is row b's prompt followed by row b+1's completion, cut at T", () => {
    const m = mismatchedRows(rows());
    // Row 0: prompt [1, 2] + completion of row 1 [8, 1, 3] → tokens 1 2 8 1 3.
    expect(Array.from(m.inputs.subarray(0, T))).toEqual([1, 2, 8, 1, 0, 0]);
    expect(Array.from(m.targets.subarray(0, T))).toEqual([2, 8, 1, 3, 0, 0]);
    expect(Array.from(m.mask.subarray(0, T))).toEqual([0, 1, 1, 1, 0, 0]);
    // Row 1: prompt [2, 6, 7] + completion of row 2 [5, 6].
    expect(Array.from(m.targets.subarray(T, 2 * T))).toEqual([6, 7, 5, 6, 0, 0]);
    expect(Array.from(m.mask.subarray(T, 2 * T))).toEqual([0, 0, 1, 1, 0, 0]);
    // Row 2 wraps round to row 0's completion [3, 4, 5].
    expect(Array.from(m.targets.subarray(2 * T))).toEqual([3, 3, 4, 5, 0, 0]);
    expect(Array.from(m.mask.subarray(2 * T))).toEqual([0, 1, 1, 1, 0, 0]);
  });
});

describe('the KTO term of the update step', () => {
  it('reports the reference loss and z0, and steps on the reference gradient', async () => {
    const gpu = await testGpu();
    const policy = Gpt.init(gpu, CONFIG, 7, 'policy');
    const reference = Gpt.init(gpu, CONFIG, 8, 'reference');
    const start = await policy.readParameters();
    const scorer = new Scorer(gpu);
    const steps = new UpdateSteps(gpu);
    try {
      const r = rows();
      const scores = await scorer.score(
        r,
        new Map([
          ['policy', policy],
          ['reference', reference],
        ]),
        ['mismatched'],
        1,
      );
      const mismatched = scores.mismatched;
      if (!mismatched) throw new Error('the scorer did not add the mismatched score');
      const desirable = [1, 0, 1];
      const want = ktoRef(
        {
          logp: scores.oldLogp,
          refLogp: scores.refLogp,
          mask: r.actionMask,
          klLogp: mismatched.logp,
          klRefLogp: mismatched.refLogp,
          klMask: mismatched.mask,
          desirable,
        },
        { B, T, ...PARAMS },
      );
      const base: Minibatch = {
        B,
        T,
        inputs: r.inputs,
        targets: r.targets,
        mask: r.actionMask,
        scales: new Float32Array(B).fill(1),
        advantages: Float32Array.from(r.actionMask, (m, i) => m * (desirable[Math.floor(i / T)] ? 1 : -1)),
        oldLogp: scores.oldLogp,
        rolloutLogp: scores.oldLogp,
        refLogp: scores.refLogp,
        returns: new Float32Array(B * T),
        oldValues: new Float32Array(B * T),
        mismatched,
      };
      // Both sides are non-trivial: z0 above its clamp, rewards of both signs of advantage.
      expect(want.z0).toBeGreaterThan(0);
      const got = await steps.step(policy, new AdamW(policy), base, [KTO], OPTIONS);
      expect(got['policy/loss']).toBeCloseTo(want.loss, 5);
      expect(got['policy/kto_z0']).toBeCloseTo(want.z0, 5);
      // The same dL/dℓ through a PPO-clip step at ratio 1, from the same weights.
      policy.writeParameters(start);
      // want.grad is m·dL/dr_b already; with scales 1 the surrogate's dL/dℓ is −A·m.
      const asPpo: Minibatch = { ...base, advantages: Float32Array.from(want.grad, (g) => -g) };
      const ppo = await steps.step(policy, new AdamW(policy), asPpo, [{ kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.2, dualClip: 0 }], OPTIONS);
      expect(got['policy/grad_norm']).toBeGreaterThan(0);
      expect(got['policy/grad_norm'] as number).toBeCloseTo(ppo['policy/grad_norm'] as number, 6);
    } finally {
      steps.destroy();
      scorer.destroy();
      policy.destroy();
      reference.destroy();
    }
  });

  it('is refused beside a surrogate, and without the mismatched score', async () => {
    const gpu = await testGpu();
    const policy = Gpt.init(gpu, CONFIG, 7, 'policy');
    const steps = new UpdateSteps(gpu);
    const r = rows();
    const mb: Minibatch = {
      B,
      T,
      inputs: r.inputs,
      targets: r.targets,
      mask: r.actionMask,
      scales: new Float32Array(B).fill(1),
      advantages: Float32Array.from(r.actionMask),
      oldLogp: new Float32Array(B * T),
      rolloutLogp: new Float32Array(B * T),
      refLogp: new Float32Array(B * T),
      returns: new Float32Array(B * T),
      oldValues: new Float32Array(B * T),
    };
    try {
      await expect(steps.step(policy, new AdamW(policy), mb, [KTO], OPTIONS)).rejects.toThrow(/needs the mismatched score/);
      await expect(steps.step(policy, new AdamW(policy), mb, [KTO, { kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.2, dualClip: 0 }], OPTIONS)).rejects.toThrow(
        /a surrogate or a KTO term, not both/,
      );
    } finally {
      steps.destroy();
      policy.destroy();
    }
  });
});
