// Where a training step's GPU time goes, kernel by kernel, at the default recipe's shapes: runs one
// SFT step, one PPO policy step and one critic step `--reps` times each with every dispatch in its
// own compute pass carrying timestamp writes, and prints the time inside each pipeline's
// dispatches, largest first, with the workgroups per dispatch (SwiftShader runs each workgroup on
// one thread: fewer workgroups than cores leaves cores idle), and the time between dispatches.
//
// Timed inside the real step, not alone: an earlier version repeated each captured dispatch in a
// submit of its own and divided the wall time, which added the submit's ~1 ms over the reps to every
// kernel (a 0.06 ms floor even for one workgroup of nothing) and made fusing small kernels look worth
// 3.5 ms a step that the step never had (docs/experiments.md, 2026-12-04). A device without
// `timestamp-query` gets that older, biased timing, and says so. Not a test.
//
//   npx tsx tools/bench/profile-step.ts [--reps 20]

import { parseArgs } from 'node:util';
import { AdamW, Gpt, type LossTerm, type Minibatch, modelConfigs, resolveRecipe, SftStepper, UpdateSteps } from '@horizon/core';
import { type Binding, Recorder, SeededRandom } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

interface Dispatched {
  label: string;
  workgroups: number;
  pipeline: GPUComputePipeline;
  bindings: readonly Binding[];
  grid: [number, number, number];
}

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '20' }, rows: { type: 'string', default: '64' }, positions: { type: 'string', default: '12' } },
});
const reps = Number(values.reps);
const gpu = await acquireNodeGpu();
const device = gpu.device;
const recipe = resolveRecipe({}).recipe;
const { policy: policyConfig, critic: criticConfig } = modelConfigs(recipe, 13);
const B = Number(values.rows); // one minibatch of the default recipe: 128 rollouts / 2 minibatches
const T = Number(values.positions); // training positions of 1–2 digit addition
const timestamps = device.features.has('timestamp-query');
const MAX_DISPATCHES = 512;

/** Runs `work` once with each dispatch in its own timestamped pass (when the device can); returns the dispatches and their GPU times in ms. */
async function timeInStep(work: () => Promise<unknown>): Promise<{ dispatched: Dispatched[]; ms: number[]; gapMs: number }> {
  const dispatched: Dispatched[] = [];
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 * MAX_DISPATCHES }) : undefined;
  const original = Recorder.prototype.dispatch;
  Recorder.prototype.dispatch = function (this: Recorder, pipeline, bindings, x, y = 1, z = 1) {
    if (x * y * z === 0) return;
    dispatched.push({ label: pipeline.label, workgroups: x * y * z, pipeline, bindings, grid: [x, y, z] });
    if (!querySet || dispatched.length > MAX_DISPATCHES) return original.call(this, pipeline, bindings, x, y, z);
    const i = dispatched.length - 1;
    // The recorder's own pass ends first (a copy does the same), so this pass stands alone.
    (this as unknown as { endPass(): void }).endPass();
    const pass = this.encoder.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, gpu.bindGroup(pipeline, bindings));
    pass.dispatchWorkgroups(x, y, z);
    pass.end();
  };
  try {
    await work();
  } finally {
    Recorder.prototype.dispatch = original;
  }
  if (!querySet) return { dispatched, ms: await timeAlone(dispatched), gapMs: Number.NaN };
  const n = Math.min(dispatched.length, MAX_DISPATCHES);
  const resolved = device.createBuffer({ size: 16 * n, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const readable = device.createBuffer({ size: 16 * n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.resolveQuerySet(querySet, 0, 2 * n, resolved, 0);
  encoder.copyBufferToBuffer(resolved, 0, readable, 0, 16 * n);
  device.queue.submit([encoder.finish()]);
  await readable.mapAsync(GPUMapMode.READ);
  const ns = new BigInt64Array(readable.getMappedRange().slice(0));
  readable.unmap();
  for (const b of [resolved, readable]) b.destroy();
  querySet.destroy();
  const ms = Array.from({ length: n }, (_, i) => Number(ns[2 * i + 1] - ns[2 * i]) / 1e6);
  let gapMs = 0;
  for (let i = 1; i < n; i++) gapMs += Number(ns[2 * i] - ns[2 * i - 1]) / 1e6;
  return { dispatched, ms, gapMs };
}

/** Without timestamps: each dispatch repeated `reps` times in one submit, wall time over reps (biased up by the submit, see the header). */
async function timeAlone(dispatched: Dispatched[]): Promise<number[]> {
  const out: number[] = [];
  for (const d of dispatched) {
    const once = () =>
      gpu.run((rec) => {
        for (let i = 0; i < reps; i++) rec.dispatch(d.pipeline, d.bindings, ...d.grid);
      });
    once();
    await gpu.sync();
    const t0 = performance.now();
    once();
    await gpu.sync();
    out.push((performance.now() - t0) / reps);
  }
  return out;
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
if (!timestamps) console.log('this device has no timestamp-query: each kernel is timed alone, which adds the submit to every figure (see the header)');
for (const [name, run] of steps) {
  await run(); // warm-up: pipelines and buffers
  const t0 = performance.now();
  await run();
  const wall = performance.now() - t0;
  const byLabel = new Map<string, { ms: number; count: number; workgroups: Set<number> }>();
  let inside = 0;
  let between = 0;
  let dispatches = 0;
  const rounds = timestamps ? reps : 1;
  for (let r = 0; r < rounds; r++) {
    const { dispatched, ms, gapMs } = await timeInStep(run);
    dispatches = dispatched.length;
    between += gapMs / rounds;
    ms.forEach((t, i) => {
      const d = dispatched[i];
      const entry = byLabel.get(d.label) ?? { ms: 0, count: 0, workgroups: new Set<number>() };
      entry.ms += t / rounds;
      if (r === 0) entry.count++;
      entry.workgroups.add(d.workgroups);
      byLabel.set(d.label, entry);
      inside += t / rounds;
    });
  }
  const table = [...byLabel.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const gaps = timestamps ? `, between them ${between.toFixed(2)} ms` : '';
  console.log(
    `\n${name} (B=${B}, T=${T}, ${policyConfig.layers} layers, D=${policyConfig.width}): wall ${wall.toFixed(1)} ms, ${dispatches} dispatches, ${timestamps ? `inside them ${inside.toFixed(1)} ms (mean of ${reps} steps)` : `sum of kernels alone ${inside.toFixed(1)} ms`}${gaps}`,
  );
  for (const [label, e] of table)
    console.log(
      `  ${label.padEnd(36)} ${e.ms.toFixed(2).padStart(8)} ms  ${((100 * e.ms) / inside).toFixed(1).padStart(5)}%  ×${String(e.count).padEnd(3)} workgroups ${[...e.workgroups].sort((a, b) => a - b).join(', ')}`,
    );
}
process.exit(0);
