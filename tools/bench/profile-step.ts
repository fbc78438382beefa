// Where a training step's GPU time goes, kernel by kernel, at the default recipe's shapes: records
// one SFT step, one PPO policy step and one critic step while capturing every dispatch, then times
// each captured dispatch on its own (repeated, one submit, drained) and prints them grouped by
// pipeline, largest first, with the workgroups per dispatch (SwiftShader runs each workgroup on one
// thread: fewer workgroups than cores leaves cores idle). Not a test; the numbers feed
// docs/experiments.md.
//
//   npx tsx tools/bench/profile-step.ts [--reps 20]

import { parseArgs } from 'node:util';
import { AdamW, Gpt, type LossTerm, type Minibatch, modelConfigs, resolveRecipe, SftStepper, UpdateSteps } from '@horizon/core';
import { type Binding, type Gpu, Recorder, SeededRandom } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

interface Captured {
  label: string;
  pipeline: GPUComputePipeline;
  bindings: readonly Binding[];
  grid: [number, number, number];
}

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '20' }, rows: { type: 'string', default: '64' }, positions: { type: 'string', default: '12' } },
});
const reps = Number(values.reps);
const gpu = await acquireNodeGpu();
const recipe = resolveRecipe({}).recipe;
const { policy: policyConfig, critic: criticConfig } = modelConfigs(recipe, 13);
const B = Number(values.rows); // one minibatch of the default recipe: 128 rollouts / 2 minibatches
const T = Number(values.positions); // training positions of 1–2 digit addition

/** Runs `work` once with every dispatch captured (and still executed). */
async function capture(work: () => Promise<unknown>): Promise<Captured[]> {
  const captured: Captured[] = [];
  const original = Recorder.prototype.dispatch;
  Recorder.prototype.dispatch = function (this: Recorder, pipeline, bindings, x, y = 1, z = 1) {
    captured.push({ label: pipeline.label, pipeline, bindings, grid: [x, y, z] });
    original.call(this, pipeline, bindings, x, y, z);
  };
  try {
    await work();
  } finally {
    Recorder.prototype.dispatch = original;
  }
  return captured;
}

async function timeEach(g: Gpu, dispatches: Captured[]): Promise<Map<string, { ms: number; count: number; workgroups: Set<number> }>> {
  const byLabel = new Map<string, { ms: number; count: number; workgroups: Set<number> }>();
  for (const d of dispatches) {
    const once = () =>
      g.run((rec) => {
        for (let i = 0; i < reps; i++) rec.dispatch(d.pipeline, d.bindings, ...d.grid);
      });
    once();
    await g.sync();
    const t0 = performance.now();
    once();
    await g.sync();
    const ms = (performance.now() - t0) / reps;
    const entry = byLabel.get(d.label) ?? { ms: 0, count: 0, workgroups: new Set<number>() };
    entry.ms += ms;
    entry.count++;
    entry.workgroups.add(d.grid[0] * d.grid[1] * d.grid[2]);
    byLabel.set(d.label, entry);
  }
  return byLabel;
}

const rng = new SeededRandom(1);
const tokens = () => Uint32Array.from({ length: B * T }, () => rng.int(0, 12));
const normal = () => Float32Array.from({ length: B * T }, () => rng.normal());
const mask = Uint32Array.from({ length: B * T }, (_, i) => (i % T >= 5 ? 1 : 0));
const mb: Minibatch = {
  B,
  T,
  inputs: tokens(),
  targets: tokens(),
  mask,
  scales: new Float32Array(B).fill(1 / mask.reduce((a, m) => a + m, 0)),
  advantages: normal(),
  oldLogp: normal(),
  refLogp: normal(),
  rolloutLogp: normal(),
  returns: normal(),
  oldValues: normal(),
};
const optimizer = { lr: 1e-4, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1 };
const policy = Gpt.init(gpu, policyConfig, 1, 'policy');
const critic = Gpt.init(gpu, criticConfig, 2, 'critic');
const updates = new UpdateSteps(gpu);
const policyOptimizer = new AdamW(policy);
const criticOptimizer = new AdamW(critic);
const sft = new SftStepper(gpu, policy, policyOptimizer);
const options = { ...optimizer, temperature: 1 };
const policyTerms: LossTerm[] = [{ kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.28, dualClip: 0 }];

const steps: [string, () => Promise<unknown>][] = [
  ['sft step', () => sft.step({ B, T, inputs: mb.inputs, targets: mb.targets, mask: mb.mask }, optimizer)],
  ['policy step', () => updates.step(policy, policyOptimizer, mb, policyTerms, options)],
  ['critic step', () => updates.step(critic, criticOptimizer, mb, [{ kind: 'value', clip: 0.2 }], options)],
];
for (const [name, run] of steps) {
  await run(); // warm-up: pipelines and buffers
  const t0 = performance.now();
  await run();
  const wall = performance.now() - t0;
  const dispatches = await capture(run);
  const table = [...(await timeEach(gpu, dispatches)).entries()].sort((a, b) => b[1].ms - a[1].ms);
  const total = table.reduce((s, [, e]) => s + e.ms, 0);
  console.log(
    `\n${name} (B=${B}, T=${T}, ${policyConfig.layers} layers, D=${policyConfig.width}): wall ${wall.toFixed(1)} ms, ${dispatches.length} dispatches, sum of kernels alone ${total.toFixed(1)} ms`,
  );
  for (const [label, e] of table)
    console.log(
      `  ${label.padEnd(32)} ${e.ms.toFixed(2).padStart(8)} ms  ${((100 * e.ms) / total).toFixed(1).padStart(5)}%  ×${String(e.count).padEnd(3)} workgroups ${[...e.workgroups].sort((a, b) => a - b).join(', ')}`,
    );
}
process.exit(0);
