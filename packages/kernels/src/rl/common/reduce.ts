// Launch helpers for the two-stage sums of reduce.wgsl.ts.
//
// Shapes: N elements reduced; P = partialCount(N) invocations in stage 1; partials [K, P] f32.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { checkTensor } from '../../util/checks.ts';
import { finalSumsWgsl, REDUCE_ITEMS, REDUCE_WORKGROUP } from './reduce.wgsl.ts';

/** Workgroups [x, y] for REDUCE_ITEMS elements per invocation (2-D once past 65535 per dimension). */
export function reduceGrid(gpu: Gpu, n: number): [number, number] {
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const groups = Math.max(1, Math.ceil(n / (REDUCE_WORKGROUP * REDUCE_ITEMS)));
  if (groups <= limit) return [groups, 1];
  const y = Math.ceil(groups / limit);
  return [Math.ceil(groups / y), y];
}

/** P: how many partial sums stage 1 writes per term for `n` elements (one per invocation). */
export function partialCount(gpu: Gpu, n: number): number {
  const [x, y] = reduceGrid(gpu, n);
  return x * y * REDUCE_WORKGROUP;
}

/** Elements a partials tensor needs for `terms` sums over `n` elements. */
export function partialsSize(gpu: Gpu, n: number, terms: number): number {
  return terms * partialCount(gpu, n);
}

/** Stage 2: out[offset + k] = Σ_j partials[k, j] for k < terms. */
export function recordFinalSums(rec: Recorder, gpu: Gpu, partials: Tensor, out: Tensor, terms: number, P: number, offset = 0): void {
  checkTensor('finalSums', 'partials', partials, partials.size, 'f32');
  if (partials.size < terms * P) throw new RangeError(`finalSums: partials (${partials}) must hold at least ${terms}·${P} values`);
  if (out.size < offset + terms) throw new RangeError(`finalSums: out (${out}) must hold at least ${offset + terms} values`);
  const pipeline = gpu.pipeline(finalSumsWgsl(), 'main', 'rl_final_sums');
  rec.dispatch(pipeline, [partials, out, gpu.uniform([P, offset])], terms);
}
