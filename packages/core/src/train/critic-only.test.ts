// Critic-only iterations (Trainer.trainCritics), the entry point the web UI's GenAC lab retrains
// either critic with: the policy's weights stay bit for bit while PPO's value head and GenAC's
// generative critic move, the iterations count and are logged, and a method with no critic of its
// own, or a trainer still in SFT, is refused. Also: Scorer.contextValues reads the value head the
// way scoring does (the same V at every position as the `values` score of the same rows).

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
// Through the package's index, which loads the algorithms in an order their modules' cycle allows.
import { GENERATIVE_CRITIC_NAME } from '../index.ts';
import type { Phase } from '../metrics/jsonl.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Scorer } from './scoring.ts';
import { Trainer } from './trainer.ts';

const TINY = [
  'model.contextLength=24',
  'model.policy.layers=1',
  'model.policy.width=16',
  'model.policy.heads=2',
  'sft.steps=4',
  'sft.batchSize=8',
  'rl.iterations=1',
  'rl.promptsPerIteration=4',
  'rl.groupSize=2',
  'rl.epochs=1',
  'rl.minibatches=2',
  'eval.interval=0',
  'eval.heldOutSize=1',
  'eval.oodSize=1',
];
/** GenAC's critic SFT for the run's one iteration, so the critic-only ones are its REINFORCE steps. */
const GENAC = ['genac.sftIterations=1', 'genac.reinforceIterations=0', 'genac.sftSteps=2'];

/** Bit patterns, so -0 vs 0 or NaN payloads would count as a change. */
const bits = (params: Float32Array) => Array.from(new Uint32Array(params.buffer.slice(0)));

async function trained(preset: string) {
  const gpu = await testGpu();
  const trainer = new Trainer(gpu, resolveRecipe({ preset, sets: preset === 'add-genac' ? [...TINY, ...GENAC] : TINY }).recipe);
  await trainer.run();
  return trainer;
}

describe('critic-only iterations', () => {
  for (const [preset, critic, criticMetric] of [
    ['add-ppo', 'critic', 'critic/grad_norm'],
    ['add-genac', GENERATIVE_CRITIC_NAME, 'genac/critic_grad_norm'],
  ] as const) {
    it(`${preset}: the ${critic} trains and the policy does not move; the iterations count and are logged`, async () => {
      const trainer = await trained(preset);
      try {
        const policyBefore = bits(await trainer.policy.readParameters());
        const criticModel = trainer.rlModels.get(critic);
        expect(criticModel, `${preset} builds a ${critic}`).toBeDefined();
        const criticBefore = bits(await (criticModel as NonNullable<typeof criticModel>).readParameters());
        const rows: { phase: Phase; step: number; names: string[] }[] = [];
        const results = await trainer.trainCritics(2, { onMetrics: (phase, step, metrics) => void rows.push({ phase, step, names: Object.keys(metrics) }) });
        expect(results).toHaveLength(2);
        expect(trainer.iteration).toBe(3);
        expect(rows.map((r) => [r.phase, r.step])).toEqual([
          ['rl', 2],
          ['rl', 3],
        ]);
        // The critic stepped; the policy took no step, so no policy loss or gradient was logged.
        for (const r of rows) {
          expect(r.names).toContain(criticMetric);
          expect(r.names).not.toContain('policy/loss');
          expect(r.names).not.toContain('policy/grad_norm');
        }
        expect(bits(await trainer.policy.readParameters())).toEqual(policyBefore);
        expect(bits(await (criticModel as NonNullable<typeof criticModel>).readParameters())).not.toEqual(criticBefore);
      } finally {
        trainer.dispose();
      }
    }, 120_000);
  }

  it('refuses a method with no critic of its own, and a trainer still in SFT', async () => {
    const grpo = await trained('add-grpo');
    try {
      await expect(grpo.trainCritics(1)).rejects.toThrow(/no model but the policy/);
    } finally {
      grpo.dispose();
    }
    const gpu = await testGpu();
    const fresh = new Trainer(gpu, resolveRecipe({ preset: 'add-ppo', sets: TINY }).recipe);
    try {
      await expect(fresh.trainCritics(1)).rejects.toThrow(/after the SFT warm start/);
    } finally {
      fresh.dispose();
    }
  }, 120_000);

  it('contextValues gives the value head’s V at every position, as scoring the same rows does', async () => {
    const trainer = await trained('add-ppo');
    try {
      const { rows, scores } = await trainer.sampleBatch();
      const critic = trainer.rlModels.get('critic');
      if (!critic || !scores.values) throw new Error('add-ppo scores values with its critic');
      const scorer = new Scorer(trainer.gpu);
      try {
        const values = await scorer.contextValues(critic, { B: rows.B, T: rows.T, inputs: rows.inputs });
        expect(Array.from(values)).toEqual(Array.from(scores.values));
        await expect(scorer.contextValues(trainer.policy, { B: rows.B, T: rows.T, inputs: rows.inputs })).rejects.toThrow(/reads a value head/);
      } finally {
        scorer.destroy();
      }
    } finally {
      trainer.dispose();
    }
  }, 120_000);
});
