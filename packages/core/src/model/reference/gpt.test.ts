import { SeededRandom } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import type { GptConfig } from '../config.ts';
import { initParameters } from '../init.ts';
import { parameterLayout } from '../parameters.ts';
import { referenceBackward, referenceForward, referenceLoss } from './gpt.ts';

// Shape legend:  B batch · T tokens · V vocab · P flat parameter count

// Awkward on purpose: hd = 3, T < contextLength, V not a power of two.
const lm: GptConfig = { vocabSize: 7, contextLength: 6, layers: 2, heads: 2, width: 6, head: 'lm' };
const value: GptConfig = { ...lm, head: 'value' };
const B = 2;
const T = 5;

/** The seeded init, then every element moved so no gain is 1 and no bias 0 (a real test of each). */
function randomParams(config: GptConfig, seed: number): Float64Array {
  const layout = parameterLayout(config);
  const params = Float64Array.from(initParameters(layout, config.layers, seed));
  const rng = new SeededRandom(seed + 1);
  for (const e of layout.entries) {
    const std = e.shape.length === 1 ? 0.2 : 1 / Math.sqrt(e.shape.at(-1)!);
    for (let i = e.offset; i < e.offset + e.size; i++) params[i] += std * rng.normal();
  }
  return params;
}

function batch(config: GptConfig, seed: number) {
  const rng = new SeededRandom(seed);
  const tokens = new Int32Array(B * T).map(() => rng.int(0, config.vocabSize - 1)); // [B, T]
  const targets = config.head === 'lm' ? new Int32Array(B * T).map(() => rng.int(0, config.vocabSize - 1)) : new Float64Array(B * T).map(() => rng.normal());
  const lossMask = Float64Array.from({ length: B * T }, (_, i) => (i === 0 || i === B * T - 1 ? 0 : 1)); // [B, T]
  return { tokens, targets, lossMask };
}

/**
 * Central differences in float64 for a sample of elements of every parameter tensor. The step
 * h = 1e-5 balances truncation (~h²·L''' ≈ 1e-10) against round-off (~1e-16·L/h ≈ 1e-11).
 */
function finiteDifferenceCheck(config: GptConfig, seed: number) {
  const params = randomParams(config, seed);
  const { tokens, targets, lossMask } = batch(config, seed);
  const { grads } = referenceBackward(config, params, tokens, B, T, targets, lossMask);
  const loss = (p: Float64Array) => referenceLoss(config, p, tokens, B, T, targets, lossMask).loss;
  const rng = new SeededRandom(seed + 2);
  const h = 1e-5;
  let checked = 0;
  let worst = { name: '', rel: 0 };
  for (const e of parameterLayout(config).entries) {
    for (let k = 0; k < 4; k++) {
      const i = e.offset + rng.int(0, e.size - 1);
      const saved = params[i];
      params[i] = saved + h;
      const up = loss(params);
      params[i] = saved - h;
      const down = loss(params);
      params[i] = saved;
      const numeric = (up - down) / (2 * h);
      // Relative, with an absolute floor for gradients that are 0 in exact arithmetic (the key
      // bias: adding a constant to every key leaves each softmax row unchanged).
      const rel = Math.abs(grads[i] - numeric) / Math.max(Math.abs(numeric), Math.abs(grads[i]), 1e-4);
      if (rel > worst.rel) worst = { name: `${e.name}[${i - e.offset}] analytic ${grads[i]} vs numeric ${numeric}`, rel };
      checked++;
    }
  }
  return { checked, worst };
}

describe('float64 reference GPT', () => {
  it('lm head: the gradient of the masked cross-entropy matches central differences for every tensor', () => {
    const { checked, worst } = finiteDifferenceCheck(lm, 11);
    expect(checked).toBe(4 * parameterLayout(lm).entries.length);
    expect(worst.rel, worst.name).toBeLessThan(1e-6);
  });

  it('value head: the gradient of the masked MSE matches central differences for every tensor', () => {
    const { checked, worst } = finiteDifferenceCheck(value, 12);
    expect(checked).toBe(4 * parameterLayout(value).entries.length);
    expect(worst.rel, worst.name).toBeLessThan(1e-6);
  });

  it('padding, unused positions and the key bias get zero gradient', () => {
    const params = randomParams(lm, 3);
    const { tokens, targets, lossMask } = batch(lm, 3);
    const { grads } = referenceBackward(lm, params, tokens, B, T, targets, lossMask);
    const layout = parameterLayout(lm);
    const D = lm.width;
    let end = 0;
    for (const e of layout.entries) {
      for (let i = end; i < e.offset; i++) expect(grads[i]).toBe(0);
      end = e.offset + e.size;
    }
    const wpe = layout.entries[1];
    // wpe rows T … contextLength − 1 are never read.
    expect(Array.from(grads.subarray(wpe.offset + T * D, wpe.offset + wpe.size))).toEqual(new Array((lm.contextLength - T) * D).fill(0));
    expect(Math.abs(grads[wpe.offset])).toBeGreaterThan(1e-6);
    const bias = layout.entries.find((e) => e.name === 'transformer.h.0.attn.c_attn.bias')!;
    const keyBias = grads.subarray(bias.offset + D, bias.offset + 2 * D);
    for (const g of keyBias) expect(Math.abs(g)).toBeLessThan(1e-14);
    expect(Math.abs(grads[bias.offset])).toBeGreaterThan(1e-6); // the query bias does matter
  });

  it('is causal: changing the last token leaves every earlier logit unchanged', () => {
    const params = randomParams(lm, 4);
    const { tokens } = batch(lm, 4);
    const before = referenceForward(lm, params, tokens, B, T).logits!;
    const changed = tokens.slice();
    changed[T - 1] = (changed[T - 1] + 1) % lm.vocabSize; // row 0, last position
    const after = referenceForward(lm, params, changed, B, T).logits!;
    const V = lm.vocabSize;
    expect(after.subarray(0, (T - 1) * V)).toEqual(before.subarray(0, (T - 1) * V));
    expect(after.subarray((T - 1) * V, T * V)).not.toEqual(before.subarray((T - 1) * V, T * V));
    expect(after.subarray(T * V)).toEqual(before.subarray(T * V)); // row 1 is its own sequence
  });

  it('masked positions do not count: their targets may be anything, and an all-masked batch has loss 0 and no gradient', () => {
    const params = randomParams(lm, 5);
    const { tokens, targets, lossMask } = batch(lm, 5);
    const base = referenceLoss(lm, params, tokens, B, T, targets, lossMask).loss;
    const other = targets.slice();
    other[0] = -1; // masked: ignored like PyTorch's ignore_index
    other[B * T - 1] = 99;
    expect(referenceLoss(lm, params, tokens, B, T, other, lossMask).loss).toBe(base);
    const none = referenceBackward(lm, params, tokens, B, T, targets, new Float64Array(B * T));
    expect(none.loss).toBe(0);
    expect(none.grads.every((g) => g === 0)).toBe(true);
  });

  it('the loss is a mean over counted positions: one position alone gives its own cross-entropy', () => {
    const params = randomParams(lm, 6);
    const { tokens, targets } = batch(lm, 6);
    const logits = referenceForward(lm, params, tokens, B, T).logits!;
    const V = lm.vocabSize;
    const n = 3;
    const row = Array.from(logits.subarray(n * V, (n + 1) * V));
    const max = Math.max(...row);
    const ce = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0)) - row[targets[n]];
    const mask = new Float64Array(B * T);
    mask[n] = 1;
    expect(referenceLoss(lm, params, tokens, B, T, targets, mask).loss).toBeCloseTo(ce, 14);
  });

  it('one token, and Uint32Array tokens, give the same results as Int32Array', () => {
    const params = randomParams(value, 7);
    const one = referenceForward(value, params, new Int32Array([3]), 1, 1).values!;
    expect(one.length).toBe(1);
    expect(Number.isFinite(one[0])).toBe(true);
    const { tokens } = batch(value, 7);
    expect(referenceForward(value, params, Uint32Array.from(tokens), B, T).values).toEqual(referenceForward(value, params, tokens, B, T).values);
  });

  it('rejects bad input with a RangeError naming the argument', () => {
    const params = randomParams(lm, 8);
    const { tokens, targets, lossMask } = batch(lm, 8);
    expect(() => referenceForward(lm, params, tokens, B, T + 1)).toThrow(/tokens has 10 values; expected B·T = 12/);
    expect(() => referenceForward(lm, params, new Int32Array(7 * 2), 2, 7)).toThrow(/T must be an integer in \[1, contextLength = 6\], got 7/);
    expect(() => referenceForward(lm, params, tokens, 0, T)).toThrow(/B must be a positive integer, got 0/);
    expect(() => referenceForward(lm, params.subarray(1), tokens, B, T)).toThrow(/params has \d+ values; the layout of this config needs/);
    const bad = tokens.slice();
    bad[4] = 7;
    expect(() => referenceForward(lm, params, bad, B, T)).toThrow(/tokens\[4\] = 7 is outside \[0, vocabSize = 7\)/);
    const nan = params.slice();
    nan[5] = Number.NaN;
    expect(() => referenceForward(lm, nan, tokens, B, T)).toThrow(/params\[5\] is NaN/);
    const badTargets = targets.slice();
    badTargets[2] = -1;
    expect(() => referenceLoss(lm, params, tokens, B, T, badTargets, lossMask)).toThrow(/targets\[2\] = -1 is outside .* at a position lossMask counts/);
    expect(() => referenceLoss(lm, params, tokens, B, T, targets, lossMask.subarray(1))).toThrow(/lossMask has 9 values/);
    const negative = lossMask.slice();
    negative[1] = -0.5;
    expect(() => referenceLoss(lm, params, tokens, B, T, targets, negative)).toThrow(/lossMask\[1\] = -0.5/);
    expect(() => referenceLoss(value, randomParams(value, 8), tokens, B, T, new Float64Array(B * T).fill(Number.NaN), lossMask)).toThrow(/targets\[1\] = NaN/);
    expect(() => referenceForward({ ...lm, width: 5 }, params, tokens, B, T)).toThrow(/model.width \(5\) must be a multiple of model.heads \(2\)/);
  });
});
