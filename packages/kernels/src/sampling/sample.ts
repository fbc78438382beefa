// Launcher and host API for GPU sampling (the distribution is defined in sample.wgsl.ts).
//
// Shape legend:  B draws (sequences) · V vocabulary · R logits rows when `rows` picks them
//   logits: [B, V] (or [R, V] with rows: [B] u32) · counters: [B] u32 · tokens: [B] u32 · logp: [B]
//
// Reproducibility: the draw for row b depends only on (seed, stream, counters[b], b) and the row's
// logits, so a run replays from its seed. With `keys` ([B, 2] u32, e.g. a rollout id and segment)
// it depends on (seed, stream, counters[b], keys[b]) instead of the row index: a sequence draws the
// same in whatever batch it is sampled, which concurrent episodes need. Give each draw of a row a fresh counter, e.g. the position
// of the token being sampled; the caller writes `counters` with `gpu.write` each step (it changes every
// step, so it is a storage tensor, not a content-addressed uniform).

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { checkLength, checkPositiveSizes, checkTensor } from '../util/checks.ts';
import { checkU32 } from './philox.ts';
import { SAMPLE_WORKGROUP, sampleWgsl } from './sample.wgsl.ts';

/** The smallest positive temperature accepted. */
export const MIN_TEMPERATURE = 1e-4;

export interface SampleShape {
  /** Draws: one per sequence. */
  B: number;
  V: number;
  /** Rows of logits when `rows` chooses which row each draw reads (e.g. B·T after a prefill); default B. */
  R?: number;
}

export interface SampleOptions {
  /** τ = 0 (greedy: argmax, lowest id on ties) or τ ≥ MIN_TEMPERATURE. Must match the τ the trainer scores with. */
  temperature: number;
  /** Keep the k largest logits (ties to the lower id); 0 = off. Default 0. */
  topK?: number;
  /** Philox key word 0, a u32. */
  seed: number;
  /** Philox key word 1, a u32 separating independent uses of one seed (policy, critic, judge). Default 0. */
  stream?: number;
}

export interface SampleTensors {
  logits: Tensor; // [B, V] f32, or [R, V] with rows
  counters: Tensor; // [B] u32
  tokens: Tensor; // [B] u32
  logp: Tensor; // [B] f32
  /** Draw b reads logits row rows[b] (clamped to R − 1); omit to read row b. */
  rows?: Tensor; // [B] u32
  /** Draw b is keyed by (keys[2b], keys[2b + 1]) instead of its row index b. */
  keys?: Tensor; // [B, 2] u32
}

/** Records one draw per row. */
export function recordSample(rec: Recorder, gpu: Gpu, t: SampleTensors, shape: SampleShape, options: SampleOptions): void {
  const o = checkSampleOptions(shape, options);
  const { B, V } = shape;
  const R = shape.R ?? B;
  if (!t.rows && R !== B) throw new RangeError(`sample: R (${R}) differs from B (${B}) but no rows tensor chooses the logits rows`);
  checkTensor('sample', 'logits', t.logits, R * V);
  checkTensor('sample', 'counters', t.counters, B, 'u32');
  checkTensor('sample', 'tokens', t.tokens, B, 'u32');
  checkTensor('sample', 'logp', t.logp, B);
  if (t.rows) checkTensor('sample', 'rows', t.rows, B, 'u32');
  if (t.keys) checkTensor('sample', 'keys', t.keys, 2 * B, 'u32');
  const gather = t.rows !== undefined;
  const keyed = t.keys !== undefined;
  const pipeline = gpu.pipeline(sampleWgsl(gather, keyed), 'main', `sample${gather ? '_rows' : ''}${keyed ? '_keyed' : ''}`);
  const greedy = o.temperature === 0;
  const params = gpu.uniform([B, V, o.topK, f32Bits(greedy ? 0 : 1 / o.temperature), o.seed, o.stream, greedy ? 1 : 0, R]);
  const bindings = [t.logits, t.counters, t.tokens, t.logp, params];
  if (t.rows) bindings.push(t.rows);
  if (t.keys) bindings.push(t.keys);
  rec.dispatch(pipeline, bindings, ...gridFor(gpu, B, SAMPLE_WORKGROUP));
}

/** Host API: one token and its log-prob per draw; `counters` default to zeros; `rows` and `keys` as in `SampleTensors`. */
export async function sample(
  gpu: Gpu,
  logits: Float32Array,
  shape: SampleShape,
  options: SampleOptions,
  counters: Uint32Array = new Uint32Array(shape.B),
  rows?: Uint32Array,
  keys?: Uint32Array,
): Promise<{ tokens: Uint32Array; logp: Float32Array }> {
  checkSampleOptions(shape, options);
  const { B, V } = shape;
  const R = shape.R ?? B;
  checkLength('sample', 'logits', logits, R * V);
  checkLength('sample', 'counters', counters, B);
  if (rows) {
    checkLength('sample', 'rows', rows, B);
    const bad = rows.findIndex((r) => r >= R);
    if (bad >= 0) throw new RangeError(`sample: rows[${bad}] = ${rows[bad]} is not below R = ${R}`);
  }
  if (keys) checkLength('sample', 'keys', keys, 2 * B);
  const nonFinite = logits.findIndex((x) => !Number.isFinite(x));
  if (nonFinite >= 0) throw new RangeError(`sample: logits[${nonFinite}] = ${logits[nonFinite]} is not finite`);
  const t = {
    logits: gpu.upload(logits, [R, V], 'logits'),
    counters: gpu.upload(counters, [B], 'counters'),
    tokens: gpu.tensor([B], 'u32', 'tokens'),
    logp: gpu.tensor([B], 'f32', 'logp'),
    ...(rows ? { rows: gpu.upload(rows, [B], 'rows') } : {}),
    ...(keys ? { keys: gpu.upload(keys, [B, 2], 'keys') } : {}),
  };
  try {
    gpu.run((rec) => recordSample(rec, gpu, t, shape, options), 'sample');
    return { tokens: await gpu.read(t.tokens), logp: await gpu.read(t.logp) };
  } finally {
    for (const x of Object.values(t)) gpu.destroy(x);
  }
}

/** Validates the shape and options; returns them with defaults filled in. */
export function checkSampleOptions(shape: SampleShape, options: SampleOptions): Required<SampleOptions> {
  checkPositiveSizes('sample', { B: shape.B, V: shape.V, R: shape.R ?? shape.B });
  const { temperature, topK = 0, seed, stream = 0 } = options;
  if (!Number.isFinite(temperature) || temperature < 0) throw new RangeError(`sample: temperature must be a finite number ≥ 0, got ${temperature}`);
  // Below this, (logit − max)/τ overflows f32 for ordinary logit gaps; greedy is the limit anyway.
  if (temperature > 0 && temperature < MIN_TEMPERATURE) {
    throw new RangeError(`sample: temperature must be 0 (greedy) or at least ${MIN_TEMPERATURE}, got ${temperature}`);
  }
  if (!Number.isInteger(topK) || topK < 0) throw new RangeError(`sample: topK must be a non-negative integer (0 = off), got ${topK}`);
  checkU32('sample: seed', seed);
  checkU32('sample: stream', stream);
  return { temperature, topK, seed, stream };
}
