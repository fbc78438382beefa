// SAO's critic designs through the trainer: K = 2 critic steps per policy step (each minibatch steps
// the critic twice on the same targets, then the policy once), the frozen-attention critic (its
// attention projections keep the values they started RL with while its MLPs train), and DIS as the
// surrogate. Plain PPO takes K critic steps from the same field. On the GPU (SwiftShader in CI), a
// tiny recipe cut to seconds.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { MetricName } from '../metrics/glossary.ts';
import type { Gpt } from '../model/gpt.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Trainer } from './trainer.ts';

const SMALL = [
  'model.contextLength=16',
  'sft.steps=10',
  'rl.iterations=2',
  'rl.promptsPerIteration=8',
  'rl.minibatches=2',
  'rl.criticWarmupSteps=0',
  'eval.interval=0',
  'eval.heldOutSize=10',
  'eval.oodSize=10',
  'checkpoint.interval=0',
];

/** Runs the recipe; returns the trainer, the critic's weights as RL started, and the RL rows. */
async function train(preset: 'add-sao' | 'add-ppo', sets: string[]) {
  const gpu = await testGpu();
  const recipe = resolveRecipe({ preset, sets: [...SMALL, ...sets] }).recipe;
  const trainer = new Trainer(gpu, recipe);
  let criticAtStart: Float32Array | undefined;
  const rl: Partial<Record<MetricName, number>>[] = [];
  await trainer.run({
    onMetrics: async (phase, step, metrics) => {
      // The evaluation before the first iteration comes right after the critic is built.
      if (phase === 'eval' && step === 0) criticAtStart = await (trainer.rlModels.get('critic') as Gpt).readParameters();
      if (phase === 'rl') rl.push(metrics);
    },
  });
  return { trainer, recipe, criticAtStart: criticAtStart as Float32Array, rl };
}

describe('SAO through the trainer', () => {
  it('K = 2 critic steps per policy step; the critic’s attention stays frozen while its MLPs train; DIS is the surrogate', async () => {
    const { trainer, recipe, criticAtStart, rl } = await train('add-sao', []);
    const policySteps = recipe.rl.iterations * recipe.rl.epochs * recipe.rl.minibatches;
    expect(trainer.policyOptimizer.step).toBe(policySteps);
    expect(trainer.rlOptimizers.get('critic')?.step).toBe(2 * policySteps);

    const critic = trainer.rlModels.get('critic') as Gpt;
    const after = await critic.readParameters();
    const slice = (w: Float32Array, name: string) => {
      const entry = critic.layout.entries.find((e) => e.name === name);
      if (!entry) throw new Error(`no parameter ${name}`);
      return w.subarray(entry.offset, entry.offset + entry.size);
    };
    const attention = critic.layout.entries.filter((e) => e.name.includes('.attn.')).map((e) => e.name);
    expect(attention).toHaveLength(4 * recipe.model.policy.layers);
    for (const name of attention) expect(slice(after, name), name).toEqual(slice(criticAtStart, name));
    for (const name of ['transformer.h.0.mlp.c_fc.weight', 'value_head.weight']) expect(slice(after, name), name).not.toEqual(slice(criticAtStart, name));

    // DIS reports its band-mask fraction and no dual clip.
    expect(rl.at(-1)?.['policy/clip_frac']).toBeDefined();
    expect(rl.at(-1)).not.toHaveProperty('policy/dual_clip_frac');
    expect(rl.at(-1)?.['critic/value_loss']).toBeGreaterThan(0);
  });

  it('plain PPO with rl.criticUpdates = 2 steps its critic twice per policy step, with attention trained', async () => {
    const { trainer, recipe, criticAtStart } = await train('add-ppo', ['rl.criticUpdates=2', 'rl.epochs=1']);
    const policySteps = recipe.rl.iterations * recipe.rl.epochs * recipe.rl.minibatches;
    expect(trainer.policyOptimizer.step).toBe(policySteps);
    expect(trainer.rlOptimizers.get('critic')?.step).toBe(2 * policySteps);
    const critic = trainer.rlModels.get('critic') as Gpt;
    const entry = critic.layout.entries.find((e) => e.name === 'transformer.h.0.attn.c_attn.weight');
    if (!entry) throw new Error('no attention parameter');
    const after = await critic.readParameters();
    expect(after.subarray(entry.offset, entry.offset + entry.size)).not.toEqual(criticAtStart.subarray(entry.offset, entry.offset + entry.size));
  });
});
