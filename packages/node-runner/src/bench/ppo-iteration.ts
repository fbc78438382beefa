// One PPO iteration of the default recipe by phase — rollout, scoring, advantages (GAE +
// whitening), critic update, policy update — through the trainer itself (core's Trainer on a short
// SFT warm start, so rollouts end at <eos> as in a real run), as ms per iteration and tokens/s.
// The PyTorch CPU twin of one update step is in the training-steps section, on the same shapes.

import { type MetricName, resolveRecipe, Trainer } from '@horizon/core';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';
import { median } from './timing.ts';

const PHASES: [MetricName, string][] = [
  ['perf/rollout_s', 'rollout (sampling on the GPU + environment)'],
  ['perf/score_s', 'scoring (old, reference log-probs; critic values)'],
  ['perf/advantage_s', 'advantages (GAE + whitening)'],
  ['perf/critic_update_s', 'critic update'],
  ['perf/policy_update_s', 'policy update'],
  ['perf/iteration_s', 'whole iteration'],
];

export const ppoIterationSection: BenchSection = {
  name: 'ppo iteration',
  async run(ctx) {
    const label = 'PPO iteration, add-ppo';
    if (!PHASES.some(([, what]) => ctx.wants(`${label}: ${what}`)) && !ctx.wants(`${label}: rollout tokens/s`)) return [];
    // Enough warm start for answers that end; no critic warm-up, so every iteration has both updates.
    const sets = ['sft.steps=150', 'rl.criticWarmupSteps=0', 'eval.heldOutSize=20', 'eval.oodSize=10', 'eval.interval=0', `rl.iterations=${ctx.quick ? 3 : 6}`];
    const { recipe } = resolveRecipe({ preset: 'add-ppo', sets });
    ctx.progress(`PPO iteration: SFT warm start (${recipe.sft.steps} steps), then ${recipe.rl.iterations} iterations (the first is a warm-up)`);
    const trainer = new Trainer(ctx.gpu, recipe);
    const iterations: Partial<Record<MetricName, number>>[] = [];
    try {
      await trainer.run({ onMetrics: (phase, _step, metrics) => void (phase === 'rl' ? iterations.push(metrics) : undefined) });
    } finally {
      trainer.dispose();
    }
    const timed = iterations.slice(1);
    const rows: BenchRow[] = PHASES.map(([metric, what]) => makeRow(`${label}: ${what}`, 'ms', 1000 * median(timed.map((m) => m[metric] ?? 0))));
    rows.push(makeRow(`${label}: rollout tokens/s`, 'tokens/s', median(timed.map((m) => m['perf/tokens_per_s'] ?? 0))));
    rows.push(makeRow(`${label}: update tokens/s (policy fwd+bwd)`, 'tokens/s', median(timed.map((m) => m['perf/train_tokens_per_s'] ?? 0))));
    return rows;
  },
};
