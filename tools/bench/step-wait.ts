// What a tiny-GPT SFT step costs against how its waits for the GPU are spent: times 40 steps (the
// profile-step shape: B = 64, T = 12, 2 layers, D = 32) and, with --sleep-ms N, sleeps N ms before
// every wait (mapAsync, onSubmittedWorkDone) so the GPU works while the main thread is idle. Run
// with HORIZON_DAWN_POLLING=spin for Dawn's own busy polling; figures in docs/experiments.md
// (2026-12-04). Not a test.
//
//   [HORIZON_DAWN_POLLING=spin] npx tsx tools/bench/step-wait.ts [--sleep-ms 35]

import { parseArgs } from 'node:util';
import { AdamW, Gpt, modelConfigs, resolveRecipe, SftStepper } from '@horizon/core';
import { SeededRandom } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

const { values } = parseArgs({ options: { 'sleep-ms': { type: 'string', default: '0' }, steps: { type: 'string', default: '40' } } });
const sleepMs = Number(values['sleep-ms']);
const steps = Number(values.steps);
const gpu = await acquireNodeGpu();
const { policy: config } = modelConfigs(resolveRecipe({}).recipe, 13);
const B = 64;
const T = 12;
const rng = new SeededRandom(1);
const tokens = () => Uint32Array.from({ length: B * T }, () => rng.int(0, 12));
const mask = Uint32Array.from({ length: B * T }, (_, i) => (i % T >= 5 ? 1 : 0));
const policy = Gpt.init(gpu, config, 1, 'policy');
const sft = new SftStepper(gpu, policy, new AdamW(policy));
const optimizer = { lr: 1e-4, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1 };
const batch = { B, T, inputs: tokens(), targets: tokens(), mask };
for (let i = 0; i < 5; i++) await sft.step(batch, optimizer); // warm-up: pipelines and buffers

if (sleepMs > 0) {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, sleepMs));
  const buffer = Object.getPrototypeOf(gpu.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
  const queue = Object.getPrototypeOf(gpu.device.queue);
  const mapAsync = buffer.mapAsync;
  const workDone = queue.onSubmittedWorkDone;
  buffer.mapAsync = async function (this: GPUBuffer, ...args: unknown[]) {
    await sleep();
    return mapAsync.apply(this, args);
  };
  queue.onSubmittedWorkDone = async function (this: GPUQueue) {
    await sleep();
    return workDone.apply(this);
  };
}
const t0 = performance.now();
for (let i = 0; i < steps; i++) await sft.step(batch, optimizer);
console.log(
  `${((performance.now() - t0) / steps).toFixed(1)} ms a step over ${steps} steps (polling: ${process.env.HORIZON_DAWN_POLLING === 'spin' ? 'Dawn spins' : 'throttled'}, sleep before each wait: ${sleepMs} ms)`,
);
process.exit(0);
