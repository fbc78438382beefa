// Launchers for the generation-driving kernels (math in generation.wgsl.ts).
//
// Shape legend:  B rows · Tmax context length · D width · V vocabulary

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkPositiveSizes, checkTensor } from '../util/checks.ts';
import { advanceWgsl, decodeEmbeddingWgsl, GENERATION_WORKGROUP, stopCheckWgsl } from './generation.wgsl.ts';

export interface DecodeEmbeddingTensors {
  input: Tensor; // [B] u32
  pos: Tensor; // [B] u32
  wte: Tensor; // [V, D] f32
  wpe: Tensor; // [Tmax, D] f32
  x: Tensor; // [B, D] f32
}

/** Records x[b] = wte[input[b]] + wpe[pos[b]] (positions past Tmax − 1 read the last row). */
export function recordDecodeEmbedding(rec: Recorder, gpu: Gpu, t: DecodeEmbeddingTensors, shape: { B: number; D: number; V: number; Tmax: number }): void {
  const k = 'decodeEmbedding';
  const { B, D, V, Tmax } = shape;
  checkPositiveSizes(k, { B, D, V, Tmax });
  checkTensor(k, 'input', t.input, B, 'u32');
  checkTensor(k, 'pos', t.pos, B, 'u32');
  checkTensor(k, 'wte', t.wte, V * D);
  checkTensor(k, 'wpe', t.wpe, Tmax * D);
  checkTensor(k, 'x', t.x, B * D);
  const pipeline = gpu.pipeline(decodeEmbeddingWgsl(), 'main', 'decode_embedding');
  rec.dispatch(pipeline, [t.input, t.pos, t.wte, t.wpe, t.x, gpu.uniform([B, D, V, Tmax])], ...gridFor(gpu, B * D, GENERATION_WORKGROUP));
}

export interface AdvanceTensors {
  sampled: Tensor; // [B] u32, this step's draws
  logp: Tensor; // [B] f32, their log-probs
  prompt: Tensor; // [B, Tmax] u32, prompts left-aligned
  promptLen: Tensor; // [B] u32
  history: Tensor; // [B, Tmax] u32, the draw at position p in column p
  historyLogp: Tensor; // [B, Tmax] f32
  input: Tensor; // [B] u32, next step's input
  pos: Tensor; // [B] u32, this step's position per row, then the next step's
}

/** Records one step's bookkeeping: store the draws at each row's position, choose every row's next input, advance positions. */
export function recordAdvance(rec: Recorder, gpu: Gpu, t: AdvanceTensors, shape: { B: number; Tmax: number }): void {
  const k = 'advance';
  const { B, Tmax } = shape;
  checkPositiveSizes(k, { B, Tmax });
  for (const name of ['sampled', 'promptLen', 'input', 'pos'] as const) checkTensor(k, name, t[name], B, 'u32');
  checkTensor(k, 'logp', t.logp, B);
  for (const name of ['prompt', 'history'] as const) checkTensor(k, name, t[name], B * Tmax, 'u32');
  checkTensor(k, 'historyLogp', t.historyLogp, B * Tmax);
  const pipeline = gpu.pipeline(advanceWgsl(), 'main', 'generation_advance');
  const bindings = [t.sampled, t.logp, t.prompt, t.promptLen, t.history, t.historyLogp, t.input, t.pos, gpu.uniform([B, Tmax])];
  rec.dispatch(pipeline, bindings, ...gridFor(gpu, B, GENERATION_WORKGROUP));
}

export interface StopCheckTensors {
  sampled: Tensor; // [B] u32, this step's draws
  pos: Tensor; // [B] u32, this step's positions (record before advance)
  promptLen: Tensor; // [B] u32
  stops: Tensor; // [B, K] u32, each row's stop ids, padded with 0xffffffff
  ended: Tensor; // [B] u32, set to 1 once a row draws one of its stops past its prompt
}

/** Padding for a row with fewer than K stop ids: no token id equals it. */
export const NO_STOP = 0xffffffff;

/** Records one step's stop check: marks each row whose draw is an action token among its stop ids. */
export function recordStopCheck(rec: Recorder, gpu: Gpu, t: StopCheckTensors, shape: { B: number; K: number }): void {
  const k = 'stopCheck';
  const { B, K } = shape;
  checkPositiveSizes(k, { B, K });
  for (const name of ['sampled', 'pos', 'promptLen', 'ended'] as const) checkTensor(k, name, t[name], B, 'u32');
  checkTensor(k, 'stops', t.stops, B * K, 'u32');
  const pipeline = gpu.pipeline(stopCheckWgsl(), 'main', 'generation_stop_check');
  rec.dispatch(pipeline, [t.sampled, t.pos, t.promptLen, t.stops, t.ended, gpu.uniform([B, K])], ...gridFor(gpu, B, GENERATION_WORKGROUP));
}
