// KTO moves the policy the way its labels say: trained through the real Trainer on a labelled file
// (kto.source = "file": each prompt's right sum desirable, the answer "0" undesirable), the implicit
// reward r = Σ(ℓ − ℓ_ref) of the next batch's undesirable completions falls below 0 and far below
// that of its desirable ones (both are exactly 0 when RL starts: the reference is the SFT policy).
// Measured on SwiftShader: r_D = −0.27, r_U = −3.87 after 6 iterations; the loss fell from 0.490 to
// 0.462. r_D itself fell a little, as DPO-family objectives often do (likelihood displacement), so
// the test asserts the margin, not r_D > 0. The file is small, so that batch holds rows trained on:
// this checks the direction of the update, not generalisation. And the
// verifier labels the policy's own rollouts: desirable iff the reward is positive. On the GPU
// (SwiftShader in CI), a tiny recipe.
//
// Shape legend:  B rows · T positions

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { resolveRecipe } from '../recipe/resolve.ts';
import { parseLabelledFile } from '../train/labelled-examples.ts';
import type { TrainingRows } from '../train/rows.ts';
import { Trainer } from '../train/trainer.ts';
import { kto } from './kto.ts';

const SETS = [
  // The file is balanced, so both labels weigh the same (the preset down-weights undesirable rollouts).
  'kto.undesirableWeight=1',
  'kto.source=file',
  'kto.file=sums.jsonl',
  'model.contextLength=16',
  'sft.steps=20',
  'rl.iterations=6',
  'rl.promptsPerIteration=8',
  'rl.epochs=2',
  'rl.minibatches=1',
  'rl.policyLr=3e-3',
  'eval.interval=0',
  'eval.heldOutSize=1',
  'eval.oodSize=1',
];

/** Two rows per problem a+b (sums 4…9): the right sum (desirable) and "0" (undesirable). */
function sums(): string {
  const lines: string[] = [];
  for (let a = 1; a <= 3; a++)
    for (let b = 3; b <= 6; b++)
      for (const [answer, label] of [
        [a + b, true],
        [0, false],
      ] as const)
        lines.push(JSON.stringify({ prompt: `${a}+${b}=`, completion: String(answer), label }));
  return lines.join('\n');
}

/** Mean Σ_t m(ℓ − ℓ_ref) over the rows with each label. */
function implicitRewards(rows: TrainingRows, logp: Float32Array, refLogp: Float32Array) {
  const sum = { desirable: 0, undesirable: 0 };
  const count = { desirable: 0, undesirable: 0 };
  for (let b = 0; b < rows.B; b++) {
    let r = 0;
    let reward = 0;
    for (let t = 0; t < rows.T; t++) {
      const i = b * rows.T + t;
      if (rows.actionMask[i]) r += logp[i] - refLogp[i];
      reward += rows.rewards[i];
    }
    const key = reward > 0 ? 'desirable' : 'undesirable';
    sum[key] += r;
    count[key]++;
  }
  return { desirable: sum.desirable / count.desirable, undesirable: sum.undesirable / count.undesirable };
}

describe('KTO', () => {
  it('lowers the implicit reward of undesirable completions below 0 and below that of desirable ones', async () => {
    const gpu = await testGpu();
    const recipe = resolveRecipe({ preset: 'add-kto', sets: SETS }).recipe;
    const labelled = parseLabelledFile('sums.jsonl', sums(), recipe);
    const trainer = new Trainer(gpu, recipe, { labelled });
    const losses: number[] = [];
    try {
      await trainer.run({ onMetrics: (phase, _step, m) => void (phase === 'rl' && losses.push(m['policy/loss'] as number)) });
      const batch = await trainer.sampleBatch();
      const r = implicitRewards(batch.rows, batch.scores.oldLogp, batch.scores.refLogp);
      console.log(
        `KTO on the file: implicit reward desirable ${r.desirable.toFixed(4)}, undesirable ${r.undesirable.toFixed(4)}; losses ${losses.map((l) => l.toFixed(4)).join(' ')}`,
      );
      expect(r.undesirable).toBeLessThan(0);
      expect(r.desirable - r.undesirable).toBeGreaterThan(1);
      expect(losses.at(-1)).toBeLessThan(losses[0]);
    } finally {
      trainer.dispose();
    }
  });

  it('labels a rollout desirable iff its reward is positive, as the sign of its advantage', async () => {
    const B = 3;
    const T = 2;
    const rows = {
      B,
      T,
      actionMask: Uint32Array.from([1, 1, 0, 1, 1, 0]),
      rewards: Float32Array.from([0, 1, 0, 0, 0, 0]),
    } as TrainingRows;
    const result = await kto.advantages({ rows } as Parameters<typeof kto.advantages>[0]);
    expect(Array.from(result.advantages)).toEqual([1, 1, 0, -1, -1, 0]);
    expect(result.metrics['rollout/desirable_frac']).toBeCloseTo(1 / 3, 6);
  });
});
