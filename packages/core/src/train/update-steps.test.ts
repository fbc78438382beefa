// The update step records exactly the loss terms it is given: a term's metrics appear iff the term is
// there, a term with no weight changes nothing, a step with no terms leaves the weights as they were,
// and a model refuses a term for another kind of head; rows copied out of a batch on the GPU train
// exactly as the same rows uploaded from the host, and one minibatch is put in place once for every
// step on it. On the GPU (SwiftShader in CI), tiny shapes.
//
// Shape legend:  B rows · T positions · V vocab

import { type Gpu, SeededRandom } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { LossTerm } from '../algorithms/algorithm.ts';
import type { GptConfig } from '../model/config.ts';
import { Gpt } from '../model/gpt.ts';
import { AdamW } from '../model/optimizer.ts';
import { BatchTensors } from './batch-tensors.ts';
import { gatherItems, gatherRows } from './rows.ts';
import { type BatchRows, type Minibatch, type StepOptions, UpdateSteps } from './update-steps.ts';

const B = 2;
const T = 4;
const LM: GptConfig = { vocabSize: 8, contextLength: 8, layers: 1, heads: 1, width: 8, head: 'lm' };
const VALUE: GptConfig = { ...LM, head: 'value' };
const OPTIONS: StepOptions = { lr: 1e-2, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClip: 1, temperature: 1 };
const PPO: LossTerm = { kind: 'ppo-clip', epsLow: 0.2, epsHigh: 0.28, dualClip: 0 };

function minibatch(): Minibatch {
  const rng = new SeededRandom(3);
  const f = (scale: number) => Float32Array.from({ length: B * T }, () => scale * rng.normal());
  const mask = Uint32Array.from([0, 1, 1, 1, 0, 1, 1, 0]);
  return {
    B,
    T,
    inputs: Uint32Array.from({ length: B * T }, (_, i) => i % LM.vocabSize),
    targets: Uint32Array.from({ length: B * T }, (_, i) => (i * 3 + 1) % LM.vocabSize),
    mask,
    scales: new Float32Array(B).fill(1 / 5),
    advantages: f(1),
    oldLogp: Float32Array.from({ length: B * T }, () => -Math.log(LM.vocabSize)),
    rolloutLogp: Float32Array.from({ length: B * T }, () => -Math.log(LM.vocabSize)),
    refLogp: f(0.5).map((x) => x - 2),
    returns: f(1),
    oldValues: f(0.1),
  };
}

/** One step of a fresh model (same seed every time) on `terms`: its metrics and its weights after. */
async function stepOnce(config: GptConfig, terms: readonly LossTerm[]) {
  const gpu = await testGpu();
  const model = Gpt.init(gpu, config, 5, config.head === 'lm' ? 'policy' : 'critic');
  const optimizer = new AdamW(model);
  const steps = new UpdateSteps(gpu);
  const before = await model.readParameters();
  try {
    const metrics = await steps.step(model, optimizer, minibatch(), terms, OPTIONS);
    return { metrics, before, after: await model.readParameters() };
  } finally {
    steps.destroy();
    optimizer.destroy();
    model.destroy();
  }
}

describe('a language-model step records the terms it is given', () => {
  it('PPO clip: the surrogate metrics, with the measured KL, approximate KL and entropy', async () => {
    const { metrics, before, after } = await stepOnce(LM, [PPO]);
    expect(Object.keys(metrics).sort()).toEqual([
      'policy/approx_kl',
      'policy/clip_frac',
      'policy/dual_clip_frac',
      'policy/entropy',
      'policy/grad_norm',
      'policy/kl',
      'policy/loss',
    ]);
    expect(Number.isFinite(metrics['policy/loss'])).toBe(true);
    expect(metrics['policy/grad_norm']).toBeGreaterThan(0);
    expect(after).not.toEqual(before);
  });

  it('DIS: a surrogate against π_roll, with no dual clip to report', async () => {
    const { metrics } = await stepOnce(LM, [{ kind: 'dis', epsLow: 0.2, epsHigh: 0.28 }]);
    expect(metrics['policy/loss']).toBeDefined();
    expect(metrics['policy/clip_frac']).toBeDefined();
    expect(metrics).not.toHaveProperty('policy/dual_clip_frac');
  });

  it('no terms: only the measurements, a zero gradient, the weights unchanged', async () => {
    const { metrics, before, after } = await stepOnce(LM, []);
    expect(metrics).not.toHaveProperty('policy/loss');
    expect(metrics).not.toHaveProperty('policy/clip_frac');
    expect(metrics['policy/grad_norm']).toBe(0);
    expect(after).toEqual(before);
  });

  it('a KL term moves the weights by its own gradient; with weight 0 it changes nothing', async () => {
    const plain = await stepOnce(LM, [PPO]);
    const zeroKl = await stepOnce(LM, [PPO, { kind: 'kl', coef: 0, estimator: 'k3' }]);
    expect(zeroKl.after).toEqual(plain.after);
    const withKl = await stepOnce(LM, [PPO, { kind: 'kl', coef: 1, estimator: 'k3' }]);
    expect(withKl.after).not.toEqual(plain.after);
    // Alone, the KL term is the whole gradient: it trains the policy toward the reference.
    const klOnly = await stepOnce(LM, [{ kind: 'kl', coef: 1, estimator: 'k3' }]);
    expect(klOnly.metrics).not.toHaveProperty('policy/loss');
    expect(klOnly.metrics['policy/grad_norm']).toBeGreaterThan(0);
  });

  it('an entropy term changes the step; two surrogates are refused', async () => {
    const plain = await stepOnce(LM, [PPO]);
    const bonus = await stepOnce(LM, [PPO, { kind: 'entropy', coef: 0.5 }]);
    expect(bonus.after).not.toEqual(plain.after);
    await expect(stepOnce(LM, [PPO, PPO])).rejects.toThrow(/at most one ppo-clip or dis term, got 2/);
  });

  it('a value term on a language-model head is refused', async () => {
    await expect(stepOnce(LM, [{ kind: 'value', clip: 0.2 }])).rejects.toThrow(/a value term trains a value head; policy has a language-model head/);
  });
});

describe('a value-head step', () => {
  it('the value term: the critic metrics only', async () => {
    const { metrics, before, after } = await stepOnce(VALUE, [{ kind: 'value', clip: 0.2 }]);
    expect(Object.keys(metrics).sort()).toEqual(['critic/grad_norm', 'critic/value_clip_frac', 'critic/value_loss']);
    expect(metrics['critic/value_loss']).toBeGreaterThan(0);
    expect(after).not.toEqual(before);
  });

  it('refuses a policy term', async () => {
    await expect(stepOnce(VALUE, [{ kind: 'value', clip: 0.2 }, PPO])).rejects.toThrow(
      /critic has a value head, which trains on one value term only, got \[value, ppo-clip\]/,
    );
  });
});

describe('rows of a batch on the GPU', () => {
  const BIG = 5;
  const INDICES = [3, 4, 0];

  /** The scored batch on the GPU, and the same rows `INDICES` as host arrays. */
  function batchAndRows(gpu: Gpu): { rows: BatchRows; host: Minibatch } {
    const rng = new SeededRandom(9);
    const f = (scale: number) => Float32Array.from({ length: BIG * T }, () => scale * rng.normal());
    const full: Minibatch = {
      B: BIG,
      T,
      inputs: Uint32Array.from({ length: BIG * T }, (_, i) => (i * 5) % LM.vocabSize),
      targets: Uint32Array.from({ length: BIG * T }, (_, i) => (i * 3 + 1) % LM.vocabSize),
      mask: Uint32Array.from({ length: BIG * T }, (_, i) => (i % T > 0 ? 1 : 0)),
      scales: Float32Array.from({ length: BIG }, (_, b) => 0.1 + 0.01 * b),
      advantages: f(1),
      oldLogp: f(0.1).map((x) => x - 2),
      rolloutLogp: f(0.1).map((x) => x - 2),
      refLogp: f(0.5).map((x) => x - 2),
      returns: f(1),
      oldValues: f(0.1),
    };
    const batch = new BatchTensors(gpu, BIG, T);
    for (const [tensor, data] of [
      [batch.inputs, full.inputs],
      [batch.targets, full.targets],
      [batch.mask, full.mask],
      [batch.scales, full.scales],
      [batch.advantages, full.advantages],
      [batch.oldLogp, full.oldLogp],
      [batch.rolloutLogp, full.rolloutLogp],
      [batch.refLogp, full.refLogp],
      [batch.returns, full.returns],
      [batch.values, full.oldValues],
    ] as const) {
      gpu.write(tensor, data);
    }
    const pick = <A extends Float32Array | Uint32Array>(a: A) => gatherRows(a, T, INDICES);
    const host: Minibatch = {
      B: INDICES.length,
      T,
      inputs: pick(full.inputs),
      targets: pick(full.targets),
      mask: pick(full.mask),
      scales: gatherItems(full.scales, INDICES),
      advantages: pick(full.advantages),
      oldLogp: pick(full.oldLogp),
      rolloutLogp: pick(full.rolloutLogp),
      refLogp: pick(full.refLogp),
      returns: pick(full.returns),
      oldValues: pick(full.oldValues),
    };
    return { rows: { batch, indices: INDICES, host: () => host }, host };
  }

  /** One step of a fresh model (same seed every time) on `rows`: its metrics and its weights after. */
  async function stepOn(config: GptConfig, terms: readonly LossTerm[], which: 'gpu' | 'host') {
    const gpu = await testGpu();
    const { rows, host } = batchAndRows(gpu);
    const model = Gpt.init(gpu, config, 5, config.head === 'lm' ? 'policy' : 'critic');
    const optimizer = new AdamW(model);
    const steps = new UpdateSteps(gpu);
    try {
      const metrics = await steps.step(model, optimizer, which === 'gpu' ? rows : host, terms, OPTIONS);
      return { metrics, after: await model.readParameters() };
    } finally {
      steps.destroy();
      optimizer.destroy();
      model.destroy();
      rows.batch.destroy();
    }
  }

  const cases: [string, GptConfig, LossTerm[]][] = [
    ['a value step', VALUE, [{ kind: 'value', clip: 0.2 }]],
    ['a PPO step with KL and entropy terms', LM, [PPO, { kind: 'kl', coef: 0.1, estimator: 'k3' }, { kind: 'entropy', coef: 0.01 }]],
    ['a DIS step', LM, [{ kind: 'dis', epsLow: 0.2, epsHigh: 0.28 }]],
  ];
  for (const [name, config, terms] of cases) {
    it(`${name}: copied out of the batch on the GPU, the same step as on the rows uploaded from the host`, async () => {
      const onGpu = await stepOn(config, terms, 'gpu');
      const fromHost = await stepOn(config, terms, 'host');
      expect(onGpu.metrics).toEqual(fromHost.metrics);
      expect(onGpu.after).toEqual(fromHost.after);
    });
  }

  it('a critic step and the policy step on the same rows put the shared inputs in place once', async () => {
    const gpu = await testGpu();
    const { host } = batchAndRows(gpu);
    const policy = Gpt.init(gpu, LM, 5, 'policy');
    const critic = Gpt.init(gpu, VALUE, 6, 'critic');
    const steps = new UpdateSteps(gpu);
    const uploadsOf = async (run: () => Promise<unknown>) => {
      const before = gpu.stats.uploads;
      await run();
      return gpu.stats.uploads - before;
    };
    try {
      const fresh = await uploadsOf(() => steps.step(policy, new AdamW(policy), { ...host }, [PPO], OPTIONS));
      await steps.step(critic, new AdamW(critic), host, [{ kind: 'value', clip: 0.2 }], OPTIONS);
      const afterCritic = await uploadsOf(() => steps.step(policy, new AdamW(policy), host, [PPO], OPTIONS));
      // inputs, mask and scales are the critic's too.
      expect(fresh - afterCritic).toBe(3);
    } finally {
      steps.destroy();
    }
  });
});
