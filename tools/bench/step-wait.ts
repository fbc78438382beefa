// What a tiny-GPT SFT step costs against how its waits for the GPU are spent: times 40 steps (the
// profile-step shape: B = 64, T = 12, 2 layers, D = 32) and, with --sleep-ms N, sleeps N ms before
// every wait (mapAsync, onSubmittedWorkDone) so the GPU works while the main thread is idle. Run
// with HORIZON_DAWN_POLLING=spin for Dawn's own busy polling. With --no-readback the steps are
// submitted back to back without reading their metrics and drained once at the end: the GPU's own
// time a step, with the host's recording overlapped. Figures in docs/experiments.md (2026-12-04).
// Not a test.
//
//   [HORIZON_DAWN_POLLING=spin] npx tsx tools/bench/step-wait.ts [--sleep-ms 35] [--no-readback]

import { parseArgs } from 'node:util';
import { AdamW, Gpt, modelConfigs, resolveRecipe, SftStepper } from '@horizon/core';
import { SeededRandom } from '@horizon/kernels';
import { acquireNodeGpu } from '@horizon/kernels/node';

const { values } = parseArgs({
  options: { 'sleep-ms': { type: 'string', default: '0' }, steps: { type: 'string', default: '40' }, 'no-readback': { type: 'boolean', default: false } },
});
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
if (values['no-readback']) {
  // The metrics the step would read back: a placeholder, so nothing waits for the GPU until the drain.
  (gpu as unknown as { read: () => Promise<Float32Array> }).read = async () => new Float32Array(128);
}
const t0 = performance.now();
for (let i = 0; i < steps; i++) await sft.step(batch, optimizer);
if (values['no-readback']) await gpu.sync();
const mode = values['no-readback'] ? 'no readbacks, one drain at the end' : `sleep before each wait: ${sleepMs} ms`;
console.log(
  `${((performance.now() - t0) / steps).toFixed(1)} ms a step over ${steps} steps (polling: ${process.env.HORIZON_DAWN_POLLING === 'spin' ? 'Dawn spins' : 'throttled'}, ${mode})`,
);
process.exit(0);
