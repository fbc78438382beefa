// The GPU GPT against the PyTorch golden fixture (llm.c's test_gpt2.cu): same weights and tokens,
// logits and loss within 1e-5 relative, every parameter gradient within 1e-4 relative to its tensor,
// and the first 10 AdamW losses. Failure messages name the worst tensor.

import { readFileSync } from 'node:fs';
import {
  AdamW,
  compareToGolden,
  type GoldenCase,
  Gpt,
  type GptConfig,
  initParameters,
  parameterLayout,
  parseGoldenFixture,
  referenceBackward,
  referenceForward,
} from '@horizon/core';
import { type Gpu, recordClassifierBackward, recordClassifierForward, SeededRandom } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';

const fixture = parseGoldenFixture(JSON.parse(readFileSync(new URL('../fixtures/gpt-golden-v1.json', import.meta.url), 'utf8')));
const GPU_TOLERANCES = { loss: 1e-5, output: 1e-5, grads: 1e-4 };

/** Loss, output and gradients of the GPU model on one golden case; `model` may be reused across steps. */
async function runCase(gpu: Gpu, c: GoldenCase, model: Gpt, optimizer?: AdamW) {
  const { B, T } = c;
  const N = B * T;
  const V = c.config.vocabSize;
  const acts = model.activations(B, T);
  const tokens = gpu.upload(Uint32Array.from(c.tokens), [B, T], 'tokens');
  const maskSum = c.lossMask.reduce((a, b) => a + b, 0);
  const rec = gpu.begin();
  model.recordZeroGrad(rec);
  model.recordForward(rec, acts, tokens);
  let loss: number;
  if (c.config.head === 'lm') {
    const targets = gpu.upload(Uint32Array.from(c.targets), [N], 'targets');
    const logp = gpu.tensor([N]);
    const entropy = gpu.tensor([N]);
    const lse = gpu.tensor([N]);
    // Cross-entropy = −logp; its mean over the mask has dL/dlogp = −mask/Σmask.
    const dlogp = gpu.upload(
      Float32Array.from(c.lossMask, (m) => -m / maskSum),
      [N],
    );
    const dlogits = gpu.tensor([N, V]);
    recordClassifierForward(rec, gpu, { logits: acts.output, targets, logp, entropy, lse }, { N, V });
    recordClassifierBackward(rec, gpu, { logits: acts.output, targets, lse, dlogp, dlogits }, { N, V });
    model.recordBackward(rec, acts, tokens, dlogits);
    if (optimizer) optimizer.recordStep(rec, { ...c.adamw!, gradClip: 0 });
    gpu.submit(rec);
    const lp = await gpu.read(logp);
    loss = -lp.reduce((s, x, i) => s + x * c.lossMask[i], 0) / maskSum;
  } else {
    // MSE needs the values first: forward, read, then the backward from dL/dV = 2·mask·(V − target)/Σmask.
    gpu.submit(rec);
    const values = (await gpu.read(acts.output)) as Float32Array;
    const dvalues = Float32Array.from(values, (v, i) => (2 * c.lossMask[i] * (v - c.targets[i])) / maskSum);
    loss = values.reduce((s, v, i) => s + c.lossMask[i] * (v - c.targets[i]) ** 2, 0) / maskSum;
    const back = gpu.begin();
    model.recordBackward(back, acts, tokens, gpu.upload(dvalues, [N]));
    gpu.submit(back);
  }
  const output = await gpu.read(acts.output);
  const grads = await gpu.read(model.grads);
  return { loss, output, grads };
}

describe('GPU GPT vs the float64 reference GPT on random weights', () => {
  // Shapes unlike the fixture's: one head of width 12 cannot hide a head-indexing bug, 3 heads of 4 can't either.
  for (const config of [
    { vocabSize: 13, contextLength: 9, layers: 1, heads: 3, width: 12, head: 'lm' },
    { vocabSize: 7, contextLength: 6, layers: 3, heads: 2, width: 8, head: 'value' },
  ] satisfies GptConfig[]) {
    it(`${config.head} head, ${config.layers} layer(s), ${config.heads} heads of width ${config.width / config.heads}`, async () => {
      const gpu = await testGpu();
      const rng = new SeededRandom(config.width);
      const B = 2;
      const T = config.contextLength - 1;
      const weights = initParameters(parameterLayout(config), config.layers, 11);
      // Randomise gains and biases too, so their gradients are not trivially structured.
      for (let i = 0; i < weights.length; i++) weights[i] += 0.1 * (rng.next() - 0.5);
      const tokens = Int32Array.from({ length: B * T }, () => rng.int(0, config.vocabSize - 1));
      const targets =
        config.head === 'lm'
          ? Int32Array.from({ length: B * T }, () => rng.int(0, config.vocabSize - 1))
          : Float64Array.from({ length: B * T }, () => rng.next());
      const lossMask = Float64Array.from({ length: B * T }, (_, i) => (i % 5 === 3 ? 0 : 1));
      const w64 = Float64Array.from(weights);
      const forward = referenceForward(config, w64, tokens, B, T);
      const backward = referenceBackward(config, w64, tokens, B, T, targets, lossMask);
      const expected: GoldenCase = {
        config,
        B,
        T,
        tokens,
        targets,
        lossMask,
        weights: w64,
        output: (forward.logits ?? forward.values)!,
        loss: backward.loss,
        grads: backward.grads,
      };
      const model = Gpt.fromWeights(gpu, config, weights, `random-${config.head}`);
      const { loss, output, grads } = await runCase(gpu, expected, model);
      const actual = { loss, grads: Float64Array.from(grads), [config.head === 'lm' ? 'logits' : 'values']: Float64Array.from(output) };
      const result = compareToGolden(expected, actual, GPU_TOLERANCES);
      expect(result.pass, result.message).toBe(true);
    });
  }
});

describe('GPU GPT vs the PyTorch golden fixture', () => {
  for (const head of ['lm', 'value'] as const) {
    it(`${head} head: output and loss within 1e-5, every gradient within 1e-4 (relative to its tensor)`, async () => {
      const gpu = await testGpu();
      const c = fixture[head];
      const model = Gpt.fromWeights(gpu, c.config, Float32Array.from(c.weights), `golden-${head}`);
      const { loss, output, grads } = await runCase(gpu, c, model);
      const actual =
        head === 'lm'
          ? { loss, logits: Float64Array.from(output), grads: Float64Array.from(grads) }
          : { loss, values: Float64Array.from(output), grads: Float64Array.from(grads) };
      const result = compareToGolden(c, actual, GPU_TOLERANCES);
      if (process.env.HORIZON_VERBOSE) console.log(head, result.message);
      expect(result.pass, result.message).toBe(true);
    });
  }

  it('the first 10 AdamW steps give PyTorch’s losses within 1e-4 relative', async () => {
    const gpu = await testGpu();
    const c = fixture.lm;
    const model = Gpt.fromWeights(gpu, c.config, Float32Array.from(c.weights), 'golden-adamw');
    const optimizer = new AdamW(model);
    const losses: number[] = [];
    for (let step = 0; step < c.adamw!.losses.length; step++) losses.push((await runCase(gpu, c, model, optimizer)).loss);
    expect(losses).toBeAllClose(c.adamw!.losses, { atol: 0, rtol: 1e-4, name: 'AdamW losses' });
    expect(losses.at(-1)!).toBeLessThan(losses[0]);
  });
});
