// Launcher and host API for GPU sampling (the distribution is defined in sample.wgsl.ts).
//
// Shape legend:  B rows · V vocabulary
//   logits: [B, V] · counters: [B] u32 · tokens: [B] u32 · logp: [B]
//
// Reproducibility: the draw for row b depends only on (seed, stream, counters[b], b) and the row's
// logits, so a run replays from its seed. Give each draw of a row a fresh counter, e.g. the position
// of the token being sampled; the caller writes `counters` with `gpu.write` each step (it changes every
// step, so it is a storage tensor, not a content-addressed uniform).

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { expectLength, expectPositiveIntegers, expectSize } from '../util/checks.ts';
import { checkU32 } from './philox.ts';
import { SAMPLE_WORKGROUP, sampleWgsl } from './sample.wgsl.ts';

/** The smallest positive temperature accepted. */
export const MIN_TEMPERATURE = 1e-4;

export interface SampleShape {
  B: number;
  V: number;
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
  logits: Tensor; // [B, V] f32
  counters: Tensor; // [B] u32
  tokens: Tensor; // [B] u32
  logp: Tensor; // [B] f32
}

/** Records one draw per row. */
export function recordSample(rec: Recorder, gpu: Gpu, t: SampleTensors, shape: SampleShape, options: SampleOptions): void {
  const o = checkSampleOptions(shape, options);
  const { B, V } = shape;
  expectSize('sample', t.logits, B * V, 'logits');
  expectSize('sample', t.counters, B, 'counters');
  expectSize('sample', t.tokens, B, 'tokens');
  expectSize('sample', t.logp, B, 'logp');
  const pipeline = gpu.pipeline(sampleWgsl(), 'main', 'sample');
  const greedy = o.temperature === 0;
  const params = gpu.uniform([B, V, o.topK, f32Bits(greedy ? 0 : 1 / o.temperature), o.seed, o.stream, greedy ? 1 : 0]);
  rec.dispatch(pipeline, [t.logits, t.counters, t.tokens, t.logp, params], ...gridFor(gpu, B, SAMPLE_WORKGROUP));
}

/** Host API: one token and its log-prob per row; `counters` default to zeros. */
export async function sample(
  gpu: Gpu,
  logits: Float32Array,
  shape: SampleShape,
  options: SampleOptions,
  counters: Uint32Array = new Uint32Array(shape.B),
): Promise<{ tokens: Uint32Array; logp: Float32Array }> {
  checkSampleOptions(shape, options);
  const { B, V } = shape;
  expectLength('sample', logits, B * V, 'logits');
  expectLength('sample', counters, B, 'counters');
  const nonFinite = logits.findIndex((x) => !Number.isFinite(x));
  if (nonFinite >= 0) throw new RangeError(`sample: logits[${nonFinite}] = ${logits[nonFinite]} is not finite`);
  const t = {
    logits: gpu.upload(logits, [B, V], 'logits'),
    counters: gpu.upload(counters, [B], 'counters'),
    tokens: gpu.tensor([B], 'u32', 'tokens'),
    logp: gpu.tensor([B], 'f32', 'logp'),
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
  expectPositiveIntegers('sample', shape, ['B', 'V']);
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
