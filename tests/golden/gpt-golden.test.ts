// The float64 reference GPT against its PyTorch twin (llm.c's test_gpt2.c): logits, loss, every
// gradient, and the first 10 AdamW losses, from tests/fixtures/gpt-golden-v1.json. When this fails
// after a deliberate change to the model or the fixture format, regenerate with `pnpm golden`.

import { readFileSync } from 'node:fs';
import {
  compareToGolden,
  type GoldenCase,
  parameterLayout,
  parseGoldenFixture,
  referenceAdamW,
  referenceBackward,
  referenceForward,
  referenceLoss,
  weightDecayMask,
} from '@horizon/core';
import { describe, expect, it } from 'vitest';

const raw = JSON.parse(readFileSync(new URL('../fixtures/gpt-golden-v1.json', import.meta.url), 'utf8'));
const fixture = parseGoldenFixture(raw);

function reference(c: GoldenCase) {
  const { logits, values } = referenceForward(c.config, c.weights, c.tokens, c.B, c.T);
  const { loss, grads } = referenceBackward(c.config, c.weights, c.tokens, c.B, c.T, c.targets, c.lossMask);
  return { loss, logits, values, grads };
}

describe('reference GPT vs the PyTorch golden fixture', () => {
  it('lm head: logits and loss within 1e-10, every gradient within 1e-9 (relative to its tensor)', () => {
    const result = compareToGolden(fixture.lm, reference(fixture.lm));
    expect(result.pass, result.message).toBe(true);
    expect(result.tensors.map((t) => t.name)).toContain('logits');
    expect(result.tensors.length).toBe(2 + parameterLayout(fixture.lm.config).entries.length + 1); // + padding
  });

  it('value head: values and MSE loss within 1e-10, every gradient within 1e-9', () => {
    const result = compareToGolden(fixture.value, reference(fixture.value));
    expect(result.pass, result.message).toBe(true);
    expect(result.tensors.map((t) => t.name)).toContain('values');
  });

  it('reference AdamW (decay on ≥ 2-D parameters only) reproduces the first 10 PyTorch losses', () => {
    const c = fixture.lm;
    const adamw = c.adamw!;
    expect(adamw.losses.length).toBe(10);
    const params = c.weights.slice();
    const m = new Float64Array(params.length);
    const v = new Float64Array(params.length);
    const decay = weightDecayMask(parameterLayout(c.config));
    const losses: number[] = [];
    for (let step = 1; step <= adamw.losses.length; step++) {
      const { loss, grads } = referenceBackward(c.config, params, c.tokens, c.B, c.T, c.targets, c.lossMask);
      losses.push(loss);
      referenceAdamW(params, grads, m, v, step, adamw, decay);
    }
    for (let i = 0; i < losses.length; i++) expect(Math.abs(losses[i] - adamw.losses[i]) / adamw.losses[i], `step ${i + 1}`).toBeLessThan(1e-10);
    expect(adamw.losses[9]).toBeLessThan(adamw.losses[0] * 0.8); // the fixture records real learning
  });

  it('the decay groups matter: decaying every parameter moves the 10th loss away from PyTorch', () => {
    const c = fixture.lm;
    const params = c.weights.slice();
    const m = new Float64Array(params.length);
    const v = new Float64Array(params.length);
    const everything = new Uint8Array(params.length).fill(1);
    for (let step = 1; step <= 10; step++) {
      const { grads } = referenceBackward(c.config, params, c.tokens, c.B, c.T, c.targets, c.lossMask);
      referenceAdamW(params, grads, m, v, step, c.adamw!, everything);
    }
    const after = referenceLoss(c.config, params, c.tokens, c.B, c.T, c.targets, c.lossMask).loss;
    expect(Math.abs(after - c.adamw!.losses[9])).toBeGreaterThan(1e-6);
  });
});

describe('compareToGolden names the worst tensor', () => {
  const good = reference(fixture.lm);

  it('a perturbed gradient tensor is named, with its relative error and index', () => {
    const layout = parameterLayout(fixture.lm.config);
    const target = layout.entries.find((e) => e.name === 'transformer.h.1.mlp.c_fc.weight')!;
    const grads = good.grads.slice();
    let scale = 0;
    for (let i = target.offset; i < target.offset + target.size; i++) scale = Math.max(scale, Math.abs(fixture.lm.grads[i]));
    grads[target.offset + 17] += 1e-6 * scale;
    const result = compareToGolden(fixture.lm, { ...good, grads });
    expect(result.pass).toBe(false);
    expect(result.worst.name).toBe('transformer.h.1.mlp.c_fc.weight');
    expect(result.worst.index).toBe(17);
    expect(result.worst.relativeError).toBeCloseTo(1e-6, 9);
    expect(result.message).toMatch(
      /^DIFFERS from the lm golden case .* worst: transformer\.h\.1\.mlp\.c_fc\.weight relative error 1\.00e-6 \(tolerance 1e-9\) at \[17\]/,
    );
    // The same error passes at the GPU model's float32 tolerances (tests/golden/gpu-gpt-golden.test.ts: grads within 1e-4).
    expect(compareToGolden(fixture.lm, { ...good, grads }, { loss: 1e-5, output: 1e-5, grads: 1e-4 }).pass).toBe(true);
  });

  it('a wrong loss, NaN logits, or non-zero padding each fail and are named', () => {
    expect(compareToGolden(fixture.lm, { ...good, loss: good.loss * (1 + 1e-8) }).worst.name).toBe('loss');
    const logits = Float64Array.from(good.logits!);
    logits[5] = Number.NaN;
    const nan = compareToGolden(fixture.lm, { ...good, logits });
    expect(nan.worst.name).toBe('logits');
    expect(nan.worst.relativeError).toBe(Number.POSITIVE_INFINITY);
    const grads = good.grads.slice();
    grads[parameterLayout(fixture.lm.config).entries[0].size] = 1e-3; // first padding slot after wte
    expect(compareToGolden(fixture.lm, { ...good, grads }).worst.name).toBe('grads padding');
  });

  it('parseGoldenFixture rejects another version or a drifted layout, saying how to regenerate', () => {
    expect(() => parseGoldenFixture({ ...raw, version: 2 })).toThrow(/version 2, this checkout reads version 1; regenerate it with `pnpm golden`/);
    const drifted = structuredClone(raw);
    drifted.lm.layout[3].offset += 64;
    expect(() => parseGoldenFixture(drifted)).toThrow(/lm.layout differs from parameterLayout\(\) at entry 3/);
    const short = structuredClone(raw);
    short.value.grads.pop();
    expect(() => parseGoldenFixture(short)).toThrow(/value.grads must be \d+ numbers/);
  });
});
