import { describe, expect, it } from 'vitest';
import type { GptConfig } from '../config.ts';
import { parameterLayout } from '../parameters.ts';
import { type AdamWHyperparameters, referenceAdamW, weightDecayMask } from './adamw.ts';

const hp: AdamWHyperparameters = { lr: 0.1, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.5 };

describe('reference AdamW', () => {
  it('decays exactly the parameters with ≥ 2 dimensions, value_head.weight [1, D] included, never padding', () => {
    const config: GptConfig = { vocabSize: 5, contextLength: 4, layers: 1, heads: 2, width: 4, head: 'value' };
    const layout = parameterLayout(config);
    const mask = weightDecayMask(layout);
    expect(mask.length).toBe(layout.totalSize);
    const decayed = layout.entries.filter((e) => mask[e.offset] === 1).map((e) => e.name);
    expect(decayed).toEqual([
      'transformer.wte.weight',
      'transformer.wpe.weight',
      'transformer.h.0.attn.c_attn.weight',
      'transformer.h.0.attn.c_proj.weight',
      'transformer.h.0.mlp.c_fc.weight',
      'transformer.h.0.mlp.c_proj.weight',
      'value_head.weight',
    ]);
    for (const e of layout.entries) {
      expect(mask.subarray(e.offset, e.offset + e.size).every((x) => x === mask[e.offset])).toBe(true);
    }
    const real = layout.entries.reduce((s, e) => s + (e.shape.length >= 2 ? e.size : 0), 0);
    expect(mask.reduce((s, x) => s + x, 0)).toBe(real); // no padding element is set
  });

  it('first step from zero moments moves each parameter by lr·g/(|g| + eps), after decoupled decay', () => {
    const params = Float64Array.from([1, -2, 0.5, 3]);
    const grads = [0.3, -0.01, 0, 2];
    const decay = [1, 1, 0, 0];
    const m = new Float64Array(4);
    const v = new Float64Array(4);
    referenceAdamW(params, grads, m, v, 1, hp, decay);
    const expected = [1 * (1 - 0.05) - (0.1 * 0.3) / (0.3 + 1e-8), -2 * (1 - 0.05) + (0.1 * 0.01) / (0.01 + 1e-8), 0.5, 3 - (0.1 * 2) / (2 + 1e-8)];
    expect(params).toBeAllClose(expected, { atol: 0, rtol: 1e-14 });
    expect(m).toBeAllClose([0.03, -0.001, 0, 0.2], { atol: 0, rtol: 1e-14 });
    expect(v).toBeAllClose([0.05 * 0.09, 0.05 * 1e-4, 0, 0.05 * 4], { atol: 0, rtol: 1e-14 });
  });

  it('the second step uses bias corrections 1 − β1², 1 − β2²', () => {
    const params = Float64Array.from([0]);
    const m = new Float64Array(1);
    const v = new Float64Array(1);
    const noDecay = [0];
    referenceAdamW(params, [1], m, v, 1, hp, noDecay);
    referenceAdamW(params, [-3], m, v, 2, hp, noDecay);
    const m2 = 0.9 * 0.1 + 0.1 * -3;
    const v2 = 0.95 * 0.05 + 0.05 * 9;
    const step2 = ((0.1 / (1 - 0.81)) * m2) / (Math.sqrt(v2) / Math.sqrt(1 - 0.95 ** 2) + 1e-8);
    expect(params[0]).toBeCloseTo(-0.1 / (1 + 1e-8) - step2, 14);
  });

  it('rejects bad hyperparameters, a zero step and mismatched lengths, naming them', () => {
    const p = new Float64Array(3);
    const z = new Float64Array(3);
    const mask = new Uint8Array(3);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 0, hp, mask)).toThrow(/step must be an integer ≥ 1/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, { ...hp, beta1: 1 }, mask)).toThrow(/beta1 must be in \[0, 1\), got 1/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, { ...hp, beta2: Number.NaN }, mask)).toThrow(/beta2 must be in \[0, 1\), got NaN/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, { ...hp, eps: 0 }, mask)).toThrow(/eps must be finite and > 0/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, { ...hp, lr: -1 }, mask)).toThrow(/lr must be finite and ≥ 0, got -1/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, { ...hp, weightDecay: -0.1 }, mask)).toThrow(/weightDecay must be finite and ≥ 0/);
    expect(() => referenceAdamW(p, z, new Float64Array(2), z.slice(), 1, hp, mask)).toThrow(/m has 2 values; params has 3/);
    expect(() => referenceAdamW(p, z, z.slice(), z.slice(), 1, hp, new Uint8Array(4))).toThrow(/decayMask has 4 values; params has 3/);
  });
});
