// A sample with no trainable token is skipped, never a NaN: the batch-wide loss scales give its row
// scale 0 under every reducer, and an update step on rows like that — some or all of them — reports
// finite metrics, and with every row empty leaves the weights exactly as they were. On the GPU
// (SwiftShader in CI), tiny shapes.
//
// Shape legend:  B rows · T positions

import { actionCounts, LOSS_AGGREGATIONS, lossScales } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { LossTerm } from '../algorithms/algorithm.ts';
import type { GptConfig } from '../model/config.ts';
import { Gpt } from '../model/gpt.ts';
import { AdamW } from '../model/optimizer.ts';
import { type Minibatch, UpdateSteps } from './update-steps.ts';

const B = 3;
const T = 4;
const LM: GptConfig = { vocabSize: 8, contextLength: 8, layers: 1, heads: 1, width: 8, head: 'lm' };
const TERMS: LossTerm[] = [
  { kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.28, dualClip: 3 },
  { kind: 'kl', coef: 0.1, estimator: 'k3' },
  { kind: 'entropy', coef: 0.01 },
];
const OPTIONS = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1, temperature: 1 };

function minibatch(mask: number[], scales: Float32Array): Minibatch {
  const f = (g: (i: number) => number) => Float32Array.from({ length: B * T }, (_, i) => g(i));
  return {
    B,
    T,
    inputs: Uint32Array.from({ length: B * T }, (_, i) => i % 8),
    targets: Uint32Array.from({ length: B * T }, (_, i) => (i * 3 + 1) % 8),
    mask: Uint32Array.from(mask),
    scales,
    advantages: f((i) => Math.sin(i)),
    oldLogp: f(() => -Math.log(8)),
    rolloutLogp: f(() => -Math.log(8)),
    refLogp: f((i) => -2 - 0.1 * (i % 3)),
    returns: f((i) => i % 2),
    oldValues: f(() => 0),
  };
}

describe('a sample with no trainable token is skipped, never a NaN', () => {
  it('lossScales gives an empty row scale 0 under every reducer, and an empty batch all zeros', () => {
    const counts = actionCounts([0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0], B, T);
    for (const mode of LOSS_AGGREGATIONS) {
      const scales = lossScales(counts, { mode, rolloutIds: [0, 1, 2], constant: 4 });
      expect(scales[0]).toBe(0);
      expect([...scales].every(Number.isFinite)).toBe(true);
      expect([...lossScales([0, 0, 0], { mode, rolloutIds: [0, 1, 2], constant: 4 })]).toEqual([0, 0, 0]);
    }
  });

  it('an update step with an empty row, or only empty rows, reports finite metrics; all empty leaves the weights as they were', async () => {
    const gpu = await testGpu();
    const steps = new UpdateSteps(gpu);
    try {
      for (const mask of [
        [0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      ]) {
        for (const mode of LOSS_AGGREGATIONS) {
          const scales = lossScales(actionCounts(mask, B, T), { mode, rolloutIds: [0, 1, 2], constant: 4 });
          const model = Gpt.init(gpu, LM, 5, 'policy');
          const optimizer = new AdamW(model);
          const before = await model.readParameters();
          const metrics = await steps.step(model, optimizer, minibatch(mask, scales), TERMS, OPTIONS);
          for (const [name, value] of Object.entries(metrics)) expect(Number.isFinite(value), `${mode}: ${name} = ${value}`).toBe(true);
          const after = await model.readParameters();
          if (mask.every((m) => m === 0)) {
            expect(metrics['policy/loss']).toBe(0);
            expect(metrics['policy/grad_norm']).toBe(0);
            expect(after).toEqual(before);
          } else expect(after).not.toEqual(before);
          optimizer.destroy();
          model.destroy();
        }
      }
    } finally {
      steps.destroy();
    }
  });
});
