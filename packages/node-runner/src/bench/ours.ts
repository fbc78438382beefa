// Our side of the model-shaped rows: one SFT (GPT training) step, one PPO update step (policy +
// critic minibatch), attention forward+backward, and generation with the KV cache — each on the
// bench model shape, through the same code the trainer runs (core's SftStepper, UpdateSteps,
// Generator). Also the dispatches and submits one training step costs.
//
// Shape legend: B batch · T positions (= contextLength) · D width · V vocabulary

import { AdamW, Generator, Gpt, type LossTerm, type Minibatch, SftStepper, UpdateSteps } from '@horizon/core';
import { type Gpu, recordAttentionBackward, recordAttentionForward, SeededRandom } from '@horizon/kernels';
import type { BenchModelShape } from './shapes.ts';
import { type TimingOptions, timeGpu, timeRuns } from './timing.ts';

export interface StepCost {
  ms: number;
  dispatches: number;
  submits: number;
}

const OPTIMIZER = { lr: 1e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1 };

/** Positions per sequence: the whole context, as the peers' twins process `contextLength` tokens. */
export function stepPositions(shape: BenchModelShape): number {
  return shape.model.contextLength;
}

function randomTokens(rng: SeededRandom, n: number, V: number): Uint32Array {
  return Uint32Array.from({ length: n }, () => rng.int(0, V - 1));
}

/** What `run` costs in GPU dispatches and submits (one call, after warm-up). */
async function countWork(gpu: Gpu, run: () => Promise<void>): Promise<{ dispatches: number; submits: number }> {
  const before = { ...gpu.stats };
  await run();
  return { dispatches: gpu.stats.dispatches - before.dispatches, submits: gpu.stats.submits - before.submits };
}

/** One SFT step: forward, log-probs, masked mean cross-entropy, backward, grad-norm, AdamW, one readback. */
export async function sftStepCost(gpu: Gpu, shape: BenchModelShape, timing: TimingOptions): Promise<StepCost> {
  const model = Gpt.init(gpu, shape.model, 1, 'bench-sft');
  const stepper = new SftStepper(gpu, model, new AdamW(model));
  const B = shape.batch;
  const T = stepPositions(shape);
  const rng = new SeededRandom(3);
  const batch = {
    B,
    T,
    inputs: randomTokens(rng, B * T, shape.model.vocabSize),
    targets: randomTokens(rng, B * T, shape.model.vocabSize),
    mask: new Uint32Array(B * T).fill(1),
  };
  const run = async () => void (await stepper.step(batch, OPTIMIZER));
  const timed = await timeRuns(run, timing);
  return { ms: timed.medianMs, ...(await countWork(gpu, run)) };
}

/** One PPO minibatch update: a policy step (clipped surrogate, KL, entropy) and a critic step (clipped value loss). */
export async function ppoStepCost(gpu: Gpu, shape: BenchModelShape, timing: TimingOptions): Promise<StepCost> {
  const policy = Gpt.init(gpu, shape.model, 1, 'bench-policy');
  const critic = Gpt.init(gpu, { ...shape.model, head: 'value' }, 2, 'bench-critic');
  const policyOptimizer = new AdamW(policy);
  const criticOptimizer = new AdamW(critic);
  const steps = new UpdateSteps(gpu);
  const B = shape.batch;
  const T = stepPositions(shape);
  const rng = new SeededRandom(4);
  // As the PyTorch twin: the second half of each sequence is the policy's answer.
  const mask = Uint32Array.from({ length: B * T }, (_, i) => (i % T >= T / 2 ? 1 : 0));
  const actionTokens = mask.reduce((a, m) => a + m, 0);
  const normal = () => Float32Array.from({ length: B * T }, () => rng.normal());
  const mb: Minibatch = {
    B,
    T,
    inputs: randomTokens(rng, B * T, shape.model.vocabSize),
    targets: randomTokens(rng, B * T, shape.model.vocabSize),
    mask,
    scales: new Float32Array(B).fill(1 / actionTokens),
    advantages: normal(),
    oldLogp: Float32Array.from({ length: B * T }, () => -Math.log(shape.model.vocabSize)),
    refLogp: Float32Array.from({ length: B * T }, () => -Math.log(shape.model.vocabSize)),
    rolloutLogp: Float32Array.from({ length: B * T }, () => -Math.log(shape.model.vocabSize)),
    returns: normal(),
    oldValues: normal(),
  };
  const options = { ...OPTIMIZER, temperature: 1 };
  const policyTerms: LossTerm[] = [
    { kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.2, dualClip: 0 },
    { kind: 'entropy', coef: 0.01 },
  ];
  const run = async () => {
    await steps.step(policy, policyOptimizer, mb, policyTerms, options);
    await steps.step(critic, criticOptimizer, mb, [{ kind: 'value', clip: 0.2 }], options);
  };
  const timed = await timeRuns(run, timing);
  return { ms: timed.medianMs, ...(await countWork(gpu, run)) };
}

/** Causal attention forward + backward for every layer's shape (one layer's worth), one submit. */
export async function attentionCost(gpu: Gpu, shape: BenchModelShape, timing: TimingOptions): Promise<number> {
  const { width: D, heads: H } = shape.model;
  const B = shape.batch;
  const T = stepPositions(shape);
  const rng = new SeededRandom(5);
  const qkv = gpu.upload(rng.uniformArray(B * T * 3 * D), [B, T, 3 * D], 'qkv');
  const out = gpu.tensor([B, T, D]);
  const att = gpu.tensor([B, H, T, T]);
  const dout = gpu.upload(rng.uniformArray(B * T * D), [B, T, D], 'dout');
  const dqkv = gpu.tensor([B, T, 3 * D]);
  const s = { B, T, H, D };
  const timed = await timeGpu(
    gpu,
    (rec) => {
      recordAttentionForward(rec, gpu, { qkv, out, att }, s);
      recordAttentionBackward(rec, gpu, { qkv, att, out, dout, dqkv }, s);
    },
    timing,
  );
  for (const t of [qkv, out, att, dout, dqkv]) gpu.destroy(t);
  return timed.medianMs;
}

/** Sampled tokens per second: `shape.batch` prompts of 8 tokens, each continued to the context length. */
export async function generationTokensPerSecond(gpu: Gpu, shape: BenchModelShape, timing: TimingOptions): Promise<number> {
  const model = Gpt.init(gpu, shape.model, 6, 'bench-gen');
  const generator = new Generator(model);
  const rng = new SeededRandom(7);
  const promptLength = Math.min(8, shape.model.contextLength - 1);
  const contexts = Array.from({ length: shape.batch }, () => Array.from(randomTokens(rng, promptLength, shape.model.vocabSize)));
  const budget = shape.model.contextLength - promptLength;
  const budgets = contexts.map(() => budget);
  let seed = 0;
  const timed = await timeRuns(async () => void (await generator.generate(contexts, budgets, { temperature: 1, topK: 0, seed: seed++, stream: 0 })), timing);
  return (shape.batch * budget) / (timed.medianMs / 1000);
}
