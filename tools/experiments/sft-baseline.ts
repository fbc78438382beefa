// The SFT-only baseline for a recipe: the same warm start as `horizon train`, then more supervised
// steps instead of RL, for a given wall time, with the same greedy held-out evaluation every
// `--every` steps. Answers "what would the RL phase's time have bought as plain SFT?".
//
//   npx tsx tools/experiments/sft-baseline.ts --seconds 330 --out docs/data/sft-baseline.jsonl
//
// Writes one JSON line per evaluation: { step, seconds (after the warm start), heldOut, ood }.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveRecipe, Trainer } from '@horizon/core';
import { acquireNodeGpu } from '@horizon/kernels/node';

const { values } = parseArgs({
  options: {
    recipe: { type: 'string', default: 'add-ppo' },
    set: { type: 'string', multiple: true, default: [] },
    seconds: { type: 'string', default: '300' },
    every: { type: 'string', default: '100' },
    out: { type: 'string' },
  },
});
const gpu = await acquireNodeGpu();
const base = resolveRecipe({ preset: values.recipe as 'add-ppo', sets: values.set as string[] }).recipe;
const every = Number(values.every);
const budget = Number(values.seconds);
// The warm start is steps [0, base.sft.steps); the baseline keeps going on the same data stream.
const recipe = { ...base, sft: { ...base.sft, steps: base.sft.steps + 1_000_000 } };
const trainer = new Trainer(gpu, recipe);
const lines: string[] = [];
let started = 0;
const evaluate = async () => {
  const result = await trainer.evaluateAll({}, trainer.sftStep);
  const line = { step: trainer.sftStep, seconds: started ? (performance.now() - started) / 1000 : 0, heldOut: result.heldOut, ood: result.ood };
  lines.push(JSON.stringify(line));
  console.log(line);
};
await trainer.run({
  onMetrics: async (phase, step) => {
    if (phase !== 'sft') return;
    if (step === base.sft.steps) {
      await evaluate();
      started = performance.now();
    } else if (step > base.sft.steps && (step - base.sft.steps) % every === 0) await evaluate();
  },
  shouldStop: () => started > 0 && (performance.now() - started) / 1000 >= budget,
});
await evaluate();
if (values.out) writeFileSync(values.out as string, `${lines.join('\n')}\n`);
process.exit(0);
