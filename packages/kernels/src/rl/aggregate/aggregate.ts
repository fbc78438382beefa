// Loss aggregation on the GPU: loss = Σ_b Σ_t m[b,t]·scale[b]·values[b,t], with per-sample scales
// from `lossScales` (scales.ts) holding the batch-wide denominators of the chosen reducer.
// The trainer uses the same scales for every per-token term — policy loss, KL, entropy, value loss —
// so all of them share one reducer (trl#2995: a KL term normalized differently from the PG term).
// Entropy bonus: −c_H · aggregate(H) with H from the entropy kernel and these same scales.
//
// Shapes: values [B, T] f32, mask [B, T] u32, scales [B] f32, partials [P] f32, out [≥ offset+1] f32.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { checkArray, checkMask, checkSizes, checkTensor } from '../../util/checks.ts';
import { partialCount, recordFinalSums, reduceGrid } from '../common/reduce.ts';
import { withScope } from '../common/scope.ts';
import { aggregateWgsl } from './aggregate.wgsl.ts';
import { type AggregationOptions, resolveScales } from './scales.ts';

export interface AggregateTensors {
  /** values: [B, T] f32 — a per-token loss or metric. */
  values: Tensor;
  /** mask: [B, T] u32 — 1 on action tokens. */
  mask: Tensor;
  /** scales: [B] f32 — from `lossScales` over the whole batch. */
  scales: Tensor;
  /** partials: [partialCount(B·T)] f32 scratch. */
  partials: Tensor;
  /** out: f32; the loss lands at `offset`. */
  out: Tensor;
}

/** Records out[offset] = Σ m·scale·values. */
export function recordAggregate(rec: Recorder, gpu: Gpu, t: AggregateTensors, shape: { B: number; T: number; offset?: number }): void {
  const { B, T } = shape;
  checkSizes('aggregate', { B, T });
  const N = B * T;
  checkTensor('aggregate', 'values', t.values, N, 'f32');
  checkTensor('aggregate', 'mask', t.mask, N, 'u32');
  checkTensor('aggregate', 'scales', t.scales, B, 'f32');
  const P = partialCount(gpu, N);
  if (t.partials.size < P) throw new RangeError(`aggregate: partials (${t.partials}) must hold at least ${P} values`);
  const pipeline = gpu.pipeline(aggregateWgsl(), 'main', 'rl_aggregate');
  const [x, y] = reduceGrid(gpu, N);
  rec.dispatch(pipeline, [t.values, t.mask, t.scales, t.partials, gpu.uniform([N, Math.max(T, 1)])], x, y);
  recordFinalSums(rec, gpu, t.partials, t.out, 1, P, shape.offset ?? 0);
}

export interface AggregateInputs {
  /** values: [B, T] — per-token values to reduce. */
  values: Float32Array;
  /** mask: [B, T] — 1 on action tokens, 0 elsewhere. */
  mask: Uint32Array;
  /** scales: [B] — optional precomputed batch-wide scales (a minibatch passes its rows' scales). */
  scales?: Float32Array;
}

/**
 * Host API: the aggregated loss of `values` under a reducer (docs/algorithms/README.md §3).
 * loss = Σ_b Σ_t m·scale_b·values, units of `values`. With `scales` given, `mode` is ignored.
 */
export async function aggregate(gpu: Gpu, inputs: AggregateInputs, options: { B: number; T: number } & Partial<AggregationOptions>): Promise<number> {
  const { B, T } = options;
  checkSizes('aggregate', { B, T });
  checkArray('aggregate', 'values', inputs.values, B * T);
  checkMask('aggregate', 'mask', inputs.mask, B * T);
  const scales = resolveScales('aggregate', inputs.mask, B, T, inputs.scales, options);
  return withScope(gpu, async (s) => {
    const out = s.tensor(1, 'f32', 'loss');
    const t = {
      values: s.upload(inputs.values, 'values'),
      mask: s.upload(inputs.mask, 'mask'),
      scales: s.upload(scales, 'scales'),
      partials: s.tensor(partialCount(gpu, B * T), 'f32', 'partials'),
      out,
    };
    gpu.run((rec) => recordAggregate(rec, gpu, t, { B, T }), 'aggregate');
    return (await s.read(out))[0];
  });
}
