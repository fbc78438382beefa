// Experiment harness for tuning the addition recipes: trains (or reuses) an SFT warm start, then
// runs RL variants from it and prints held-out success over time. Not a test: numbers go to
// docs/experiments.md with the command that produced them.
//
//   npx tsx tools/experiments/rl-sweep.ts --set sft.steps=300 --variant 'rl.policyLr=3e-4' --variant 'rl.policyLr=1e-3'
//
// Each --variant is a comma-separated list of key=value recipe overrides applied on top of --set.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveRecipe, Trainer } from '@horizon/core';
import { acquireNodeGpu } from '@horizon/kernels/node';

const { values } = parseArgs({
  options: {
    recipe: { type: 'string', default: 'add-ppo' },
    set: { type: 'string', multiple: true, default: [] },
    variant: { type: 'string', multiple: true, default: [''] },
    seconds: { type: 'string', default: '0' },
  },
});
const gpu = await acquireNodeGpu();
const base = values.set as string[];
const budget = Number(values.seconds);

for (const variant of values.variant as string[]) {
  const sets = [...base, ...variant.split(',').filter(Boolean)];
  const { recipe } = resolveRecipe({ preset: values.recipe as 'add-ppo', sets });
  const trainer = new Trainer(gpu, recipe);
  const sftKey = createHash('sha256')
    .update(JSON.stringify([recipe.seed, recipe.task, recipe.model, recipe.sft, recipe.optim]))
    .digest('hex')
    .slice(0, 12);
  const cache = `/tmp/horizon-sft-${sftKey}.f32`;
  const t0 = performance.now();
  if (existsSync(cache)) {
    trainer.policy.writeParameters(new Float32Array(readFileSync(cache).buffer.slice(0)));
    trainer.sftStep = recipe.sft.steps;
  }
  const curve: string[] = [];
  let sftSeconds = 0;
  await trainer.run({
    onMetrics: async (phase, step, m) => {
      if (phase === 'eval') {
        if (step === 0) {
          sftSeconds = (performance.now() - t0) / 1000;
          if (!existsSync(cache)) writeFileSync(cache, new Uint8Array((await trainer.policy.readParameters()).buffer));
        }
        curve.push(`${step}:${(100 * (m['eval/held_out_success'] ?? 0)).toFixed(0)}%`);
      }
    },
    shouldStop: () => budget > 0 && (performance.now() - t0) / 1000 > budget,
  });
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `[${variant || 'base'}] sft ${sftSeconds.toFixed(0)} s (cache ${existsSync(cache) ? sftKey : 'new'}), total ${seconds.toFixed(0)} s, held-out: ${curve.join(' ')}`,
  );
}
process.exit(0);
