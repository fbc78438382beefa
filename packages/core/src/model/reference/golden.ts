// The PyTorch golden fixture (tests/fixtures/gpt-golden-v1.json, written by
// tools/golden/gpt_golden.py): its typed form, a parser that checks it against this checkout's
// parameter layout, and compareToGolden(), which measures any model's loss, output and gradients
// against it and names the worst tensor (docs/conventions.md §8: a failure names the worst tensor).
// Platform-free: callers read the file and hand over the parsed JSON.
//
// Shape legend:  B batch · T tokens · V vocabSize · P flat parameter count (padding included)

import { type GptConfig, validateGptConfig } from '../config.ts';
import { parameterLayout } from '../parameters.ts';
import type { AdamWHyperparameters } from './adamw.ts';

export const GOLDEN_FORMAT = 'horizon-gpt-golden';
export const GOLDEN_VERSION = 1;
const REGENERATE_HINT = 'regenerate it with `pnpm golden` (tools/golden/gpt_golden.py)';

export interface GoldenCase {
  config: GptConfig;
  B: number;
  T: number;
  tokens: Int32Array; // [B, T]
  /** [B, T]: token ids for the 'lm' head, float targets for the 'value' head. */
  targets: Int32Array | Float64Array;
  lossMask: Float64Array; // [B, T] 1 = counts
  weights: Float64Array; // [P] flat layout, every value exactly representable in f32
  /** [B, T, V] logits ('lm') or [B, T] values ('value'). */
  output: Float64Array;
  loss: number;
  grads: Float64Array; // [P] flat layout
  /** 'lm' case only: the loss before each of the first `losses.length` AdamW updates, fixed lr. */
  adamw?: AdamWHyperparameters & { losses: number[] };
}

export interface GoldenFixture {
  version: number;
  torch: string;
  lm: GoldenCase;
  value: GoldenCase;
}

// ------------------------------------------------------------------ parsing

type Json = Record<string, unknown>;

function field(obj: Json, key: string, where: string): unknown {
  if (!(key in obj)) throw new RangeError(`golden fixture: ${where}.${key} is missing; ${REGENERATE_HINT}`);
  return obj[key];
}

function numbers(obj: Json, key: string, where: string, length: number): number[] {
  const v = field(obj, key, where);
  if (!Array.isArray(v) || v.length !== length || !v.every((x) => typeof x === 'number')) {
    throw new RangeError(`golden fixture: ${where}.${key} must be ${length} numbers; ${REGENERATE_HINT}`);
  }
  return v;
}

function parseCase(json: unknown, where: 'lm' | 'value'): GoldenCase {
  if (typeof json !== 'object' || json === null) throw new RangeError(`golden fixture: ${where} is missing; ${REGENERATE_HINT}`);
  const c = json as Json;
  const config = field(c, 'config', where) as GptConfig;
  validateGptConfig(config);
  if (config.head !== where) throw new RangeError(`golden fixture: ${where}.config.head is "${config.head}"`);
  const layout = parameterLayout(config);
  // The Python twin re-derives our flat layout; if the two drift, every gradient comparison is void.
  const entries = field(c, 'layout', where) as { name: string; shape: number[]; offset: number }[];
  const ours = layout.entries.map((e) => JSON.stringify([e.name, e.shape, e.offset]));
  const theirs = entries.map((e) => JSON.stringify([e.name, e.shape, e.offset]));
  if (ours.join() !== theirs.join()) {
    const i = ours.findIndex((s, k) => s !== theirs[k]);
    throw new RangeError(`golden fixture: ${where}.layout differs from parameterLayout() at entry ${i} (${theirs[i]} vs ours ${ours[i]}); ${REGENERATE_HINT}`);
  }
  const B = field(c, 'B', where) as number;
  const T = field(c, 'T', where) as number;
  const N = B * T;
  const P = layout.totalSize;
  const targets = numbers(c, 'targets', where, N);
  const out: GoldenCase = {
    config,
    B,
    T,
    tokens: Int32Array.from(numbers(c, 'tokens', where, N)),
    targets: where === 'lm' ? Int32Array.from(targets) : Float64Array.from(targets),
    lossMask: Float64Array.from(numbers(c, 'lossMask', where, N)),
    weights: Float64Array.from(numbers(c, 'weights', where, P)),
    output: Float64Array.from(numbers(c, 'output', where, where === 'lm' ? N * config.vocabSize : N)),
    loss: field(c, 'loss', where) as number,
    grads: Float64Array.from(numbers(c, 'grads', where, P)),
  };
  if ('adamw' in c) {
    const a = c.adamw as Json;
    const steps = field(a, 'steps', `${where}.adamw`) as number;
    out.adamw = {
      lr: field(a, 'lr', `${where}.adamw`) as number,
      beta1: field(a, 'beta1', `${where}.adamw`) as number,
      beta2: field(a, 'beta2', `${where}.adamw`) as number,
      eps: field(a, 'eps', `${where}.adamw`) as number,
      weightDecay: field(a, 'weightDecay', `${where}.adamw`) as number,
      losses: numbers(a, 'losses', `${where}.adamw`, steps),
    };
  }
  return out;
}

/** Checks the parsed JSON of a golden fixture (format, version, lengths, layout) and types it. */
export function parseGoldenFixture(json: unknown): GoldenFixture {
  const f = (json ?? {}) as Json;
  if (f.format !== GOLDEN_FORMAT) throw new RangeError(`golden fixture: format is ${JSON.stringify(f.format)}, expected "${GOLDEN_FORMAT}"`);
  if (f.version !== GOLDEN_VERSION) {
    throw new RangeError(`golden fixture: version ${f.version}, this checkout reads version ${GOLDEN_VERSION}; ${REGENERATE_HINT}`);
  }
  return { version: GOLDEN_VERSION, torch: String(f.torch), lm: parseCase(f.lm, 'lm'), value: parseCase(f.value, 'value') };
}

// ------------------------------------------------------------------ comparison

export interface GoldenActual {
  loss: number;
  /** [B, T, V], compared for the 'lm' case. */
  logits?: ArrayLike<number>;
  /** [B, T], compared for the 'value' case. */
  values?: ArrayLike<number>;
  /** [P] flat layout. */
  grads: ArrayLike<number>;
}

export interface GoldenTolerances {
  loss: number;
  output: number;
  grads: number;
}

export interface TensorError {
  /** 'loss', 'logits', 'values', a parameter name (its gradient), or 'grads padding'. */
  name: string;
  kind: keyof GoldenTolerances;
  /** max |actual − expected| / max |expected| over the tensor (see compareToGolden). */
  relativeError: number;
  /** relativeError / the tolerance of its kind; > 1 fails. */
  ratio: number;
  index: number;
  actual: number;
  expected: number;
}

export interface GoldenComparison {
  pass: boolean;
  /** The tensor with the largest relativeError / tolerance. */
  worst: TensorError;
  tensors: TensorError[];
  /** One line naming the worst tensor, for test failure messages. */
  message: string;
}

/** Tight enough for two float64 implementations (measured worst: see tests/golden). */
export const FLOAT64_TOLERANCES: GoldenTolerances = { loss: 1e-10, output: 1e-10, grads: 1e-9 };

/**
 * Measures `actual` against one case of the fixture. A tensor's error is max |a − e| / max |e|:
 * relative to the tensor's scale rather than per element, so gradients that are zero or round-off
 * in the reference (unused wpe rows, the key bias, whose gradient is exactly 0 in exact arithmetic)
 * do not dominate. Each gradient tensor is named by its parameter; padding must be exactly 0 of
 * scale (its error is max |a| / max |expected gradient|).
 */
export function compareToGolden(golden: GoldenCase, actual: GoldenActual, tolerances: GoldenTolerances = FLOAT64_TOLERANCES): GoldenComparison {
  const layout = parameterLayout(golden.config);
  if (actual.grads.length !== layout.totalSize) throw new RangeError(`grads has ${actual.grads.length} values; the fixture's layout has ${layout.totalSize}`);
  const tensors: TensorError[] = [];
  const measure = (name: string, kind: keyof GoldenTolerances, a: ArrayLike<number>, e: ArrayLike<number>, from = 0, to = e.length, scale?: number) => {
    let ref = scale ?? 0;
    if (scale === undefined) for (let i = from; i < to; i++) ref = Math.max(ref, Math.abs(e[i]));
    let worst = from;
    let diff = -1;
    for (let i = from; i < to; i++) {
      const d = Math.abs(a[i] - e[i]);
      if (!(d <= diff)) {
        diff = d;
        worst = i;
        if (Number.isNaN(d)) break;
      }
    }
    const relativeError = Number.isNaN(diff) ? Number.POSITIVE_INFINITY : diff === 0 ? 0 : diff / Math.max(ref, Number.MIN_VALUE);
    tensors.push({ name, kind, relativeError, ratio: relativeError / tolerances[kind], index: worst - from, actual: a[worst], expected: e[worst] });
  };

  measure('loss', 'loss', [actual.loss], [golden.loss]);
  const outputName = golden.config.head === 'lm' ? 'logits' : 'values';
  const output = golden.config.head === 'lm' ? actual.logits : actual.values;
  if (output) {
    if (output.length !== golden.output.length) throw new RangeError(`${outputName} has ${output.length} values; the fixture has ${golden.output.length}`);
    measure(outputName, 'output', output, golden.output);
  }
  for (const e of layout.entries) measure(e.name, 'grads', actual.grads, golden.grads, e.offset, e.offset + e.size);
  // Padding, gathered from between the entries and measured against the largest expected gradient.
  const padA: number[] = [];
  const padE: number[] = [];
  let gradScale = 0;
  for (let k = 0; k < layout.entries.length; k++) {
    const e = layout.entries[k];
    const next = layout.entries[k + 1]?.offset ?? layout.totalSize;
    for (let i = e.offset; i < e.offset + e.size; i++) gradScale = Math.max(gradScale, Math.abs(golden.grads[i]));
    for (let i = e.offset + e.size; i < next; i++) {
      padA.push(actual.grads[i]);
      padE.push(0);
    }
  }
  if (padA.length > 0) measure('grads padding', 'grads', padA, padE, 0, padA.length, gradScale);

  const worst = tensors.reduce((w, t) => (t.ratio > w.ratio ? t : w));
  const pass = tensors.every((t) => t.ratio <= 1);
  const compared = output
    ? `loss, ${outputName} and ${layout.entries.length} gradients`
    : `loss and ${layout.entries.length} gradients (no ${outputName} given)`;
  const message =
    `${pass ? 'matches' : 'DIFFERS from'} the ${golden.config.head} golden case (${compared}); worst: ${worst.name} ` +
    `relative error ${worst.relativeError.toExponential(2)} (tolerance ${tolerances[worst.kind]}) at [${worst.index}]: ${worst.actual} vs ${worst.expected}`;
  return { pass, worst, tensors, message };
}
