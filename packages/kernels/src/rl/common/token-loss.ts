// Launcher shared by the per-token loss kernels (see token-loss.wgsl.ts).
//
// Shapes: inputs [B, T] f32; mask [B, T] u32; scales [B] f32; loss, grad [B, T] f32;
// partials [K·P] f32; metrics f32 receiving K sums at `metricsOffset`.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkSizes, checkTensor } from '../../util/checks.ts';
import { partialCount, recordFinalSums, reduceGrid } from './reduce.ts';
import { type TokenLossSpec, tokenLossTerms, tokenLossWgsl } from './token-loss.wgsl.ts';

export interface TokenLossTensors {
  /** mask: [B, T] u32 — 1 on action tokens. */
  mask: Tensor;
  /** scales: [B] f32 — per-sample aggregation scales over the whole batch (`lossScales`). */
  scales: Tensor;
  /** loss: [B, T] f32 output — per-token loss, 0 off the mask. */
  loss: Tensor;
  /** grad: [B, T] f32 output — d(aggregated loss)/d(input), 0 off the mask (unless accumulating). */
  grad: Tensor;
  /** partials: [K·partialCount(B·T)] f32 scratch. */
  partials: Tensor;
  /** metrics: f32 — receives the K sums (loss, flag counts, token count) at `metricsOffset`. */
  metrics: Tensor;
}

export interface TokenLossLaunch {
  kernel: string;
  spec: TokenLossSpec;
  inputs: readonly Tensor[];
  B: number;
  T: number;
  /** Multiplies the gradient (e.g. β for a KL term); default 1. */
  coef?: number;
  /** Up to four hyperparameters, `p.h0 … p.h3` in the body. */
  hyper: readonly number[];
  metricsOffset?: number;
}

export function recordTokenLoss(rec: Recorder, gpu: Gpu, t: TokenLossTensors, launch: TokenLossLaunch): void {
  const { kernel, spec, B, T } = launch;
  checkSizes(kernel, { B, T });
  const N = B * T;
  for (const [j, input] of launch.inputs.entries()) checkTensor(kernel, spec.inputs[j], input, N, 'f32');
  checkTensor(kernel, 'mask', t.mask, N, 'u32');
  checkTensor(kernel, 'scales', t.scales, B, 'f32');
  checkTensor(kernel, 'loss', t.loss, N, 'f32');
  checkTensor(kernel, 'grad', t.grad, N, 'f32');
  const K = tokenLossTerms(spec);
  const P = partialCount(gpu, N);
  if (t.partials.size < K * P) throw new RangeError(`${kernel}: partials (${t.partials}) must hold at least ${K * P} values`);
  const offset = launch.metricsOffset ?? 0;
  if (t.metrics.size < offset + K) throw new RangeError(`${kernel}: metrics (${t.metrics}) must hold at least ${offset + K} values`);
  const hyper = [0, 1, 2, 3].map((j) => f32Bits(launch.hyper[j] ?? 0));
  const params = gpu.uniform([N, Math.max(T, 1), f32Bits(launch.coef ?? 1), ...hyper]);
  const pipeline = gpu.pipeline(tokenLossWgsl(spec), 'main', `rl_${kernel}`);
  const [x, y] = reduceGrid(gpu, N);
  rec.dispatch(pipeline, [...launch.inputs, t.mask, t.scales, t.loss, t.grad, t.partials, params], x, y);
  recordFinalSums(rec, gpu, t.partials, t.metrics, K, P, offset);
}
