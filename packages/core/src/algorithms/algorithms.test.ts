// Each method's advantages on a hand-made batch, against the numbers worked out by hand (group
// methods) or a float64 loop written here from the GAE recursion (PPO), on the real GPU kernels.
// And what each method declares: its models, its scores, its loss terms per iteration.
//
// Shape legend:  B rows · T positions

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { TrainingRows } from '../train/rows.ts';
import type { Scores } from '../train/scoring.ts';
import { scoredBatchOnGpu } from '../train/testing/scored-batch.ts';
import type { AdvantageInputs, LossTerm } from './algorithm.ts';
import { declaredModels } from './declared-models.ts';
import { ALGORITHM_BY_NAME } from './index.ts';

const B = 4;
const T = 4;
// Rows 0–1 are one prompt's group, rows 2–3 another's. Row b's action tokens are positions 1..3
// (position 0 predicts the last prompt token); row 3 answers in two tokens. The outcome reward sits
// on the last action token.
const MASK = [0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0];
const LAST = [3, 3, 3, 2];
const REWARD = [1, 0, 1, 1];

function rows(terminal = [1, 1, 1, 1]): TrainingRows {
  const rewards = new Float32Array(B * T);
  for (let b = 0; b < B; b++) rewards[b * T + LAST[b]] = REWARD[b];
  return {
    B,
    T,
    inputs: new Uint32Array(B * T),
    targets: new Uint32Array(B * T),
    actionMask: Uint32Array.from(MASK),
    rewards,
    rolloutLogp: new Float32Array(B * T),
    terminal: Uint32Array.from(terminal),
    groupIds: Uint32Array.from([0, 0, 1, 1]),
    rolloutIds: Uint32Array.from([0, 1, 2, 3]),
    tokensAfter: new Uint32Array(B),
  };
}

function recipe(algorithm: Recipe['rl']['algorithm'], sets: string[] = []): Recipe {
  return resolveRecipe({ sets: [`rl.algorithm=${algorithm}`, 'rl.groupSize=2', 'rl.minibatches=1', ...sets] }).recipe;
}

async function inputs(r: Recipe, batch: TrainingRows, values?: Float32Array): Promise<AdvantageInputs> {
  const zeros = new Float32Array(B * T);
  const scores: Scores = { oldLogp: zeros, refLogp: zeros, ...(values ? { values } : {}) };
  const gpu = await testGpu();
  return { gpu, rows: batch, scores, batch: scoredBatchOnGpu(gpu, batch, scores), tokenRewards: batch.rewards, recipe: r };
}

/** A per-rollout advantage on each of its action tokens, 0 elsewhere. */
function broadcast(perRow: number[]): number[] {
  return MASK.map((m, i) => m * perRow[Math.floor(i / T)]);
}

/** Masked whitening from its formula: unbiased variance over the action tokens, ε = 1e-8. */
function whitened(values: number[]): number[] {
  const picked = values.filter((_, i) => MASK[i]);
  const mean = picked.reduce((a, x) => a + x, 0) / picked.length;
  const variance = picked.reduce((a, x) => a + (x - mean) ** 2, 0) / (picked.length - 1);
  return values.map((x, i) => (MASK[i] ? (x - mean) / Math.sqrt(variance + 1e-8) : 0));
}

describe('group methods on a hand-made batch', () => {
  // Group 0: rewards 1, 0 (mean ½, sample std 1/√2); group 1: rewards 1, 1 (no spread).
  const cases = [
    // (R − mean) / (std + 1e-6): ±(½)/(1/√2) = ±1/√2 in group 0; 0 in group 1.
    ['grpo', [Math.SQRT1_2 / (1 + 1e-6 * Math.SQRT2), -Math.SQRT1_2 / (1 + 1e-6 * Math.SQRT2), 0, 0]],
    // R − mean: ±½, and 0.
    ['dr-grpo', [0.5, -0.5, 0, 0]],
    // R − mean of the others: 1 − 0 and 0 − 1, and 0.
    ['rloo', [1, -1, 0, 0]],
  ] as const;

  for (const [name, perRow] of cases) {
    it(`${name}: one advantage per rollout on its action tokens, no critic targets`, async () => {
      const result = await ALGORITHM_BY_NAME[name].advantages(await inputs(recipe(name, ['rl.whiten=false']), rows()));
      expect(result.advantages).toBeAllClose(broadcast([...perRow]), { atol: 1e-6 });
      expect([...result.returns]).toEqual(new Array(B * T).fill(0));
      expect(result.metrics['rollout/zero_var_groups']).toBe(0.5);
    });

    it(`${name}: whitened over the batch's action tokens when the recipe says so`, async () => {
      const result = await ALGORITHM_BY_NAME[name].advantages(await inputs(recipe(name), rows()));
      expect(result.advantages).toBeAllClose(whitened(broadcast([...perRow])), { atol: 1e-5 });
    });
  }
});

describe('ppo on a hand-made batch', () => {
  const values = Float32Array.from({ length: B * T }, (_, i) => 0.1 * ((i * 7) % 5) - 0.2);

  /** GAE written from its recursion over each row's contiguous action tokens: the float64 spec here. */
  function gae(gamma: number, lambda: number, terminal: number[]): { advantages: number[]; returns: number[] } {
    const advantages = new Array(B * T).fill(0);
    const returns = new Array(B * T).fill(0);
    for (let b = 0; b < B; b++) {
      // After the last action token: 0 at a true end; when cut, V at the last action position (a trained one, critic-gae.ts).
      let nextV = terminal[b] ? 0 : values[b * T + LAST[b]];
      let nextA = 0;
      let nextReturnA = 0;
      for (let t = LAST[b]; t >= 1; t--) {
        const i = b * T + t;
        const reward = t === LAST[b] ? REWARD[b] : 0;
        const delta = reward + gamma * nextV - values[i];
        nextA = delta + gamma * lambda * nextA;
        nextReturnA = delta + gamma * 1 * nextReturnA; // λ_critic = 1: Monte Carlo targets
        advantages[i] = nextA;
        returns[i] = nextReturnA + values[i];
        nextV = values[i];
      }
    }
    return { advantages, returns };
  }

  it('λ = 1, γ = 1: the advantage is the reward-to-go minus V, the target the reward-to-go', async () => {
    const r = recipe('ppo', ['rl.whiten=false', 'rl.lambda=1', 'rl.gamma=1']);
    const result = await ALGORITHM_BY_NAME.ppo.advantages(await inputs(r, rows(), values));
    const toGo = MASK.map((m, i) => m * REWARD[Math.floor(i / T)]);
    expect(result.returns).toBeAllClose(toGo, { atol: 1e-6 });
    expect(result.advantages).toBeAllClose(
      toGo.map((g, i) => MASK[i] * (g - values[i])),
      { atol: 1e-6 },
    );
  });

  it('λ = 0.9, γ = 0.95, a truncated row bootstrapping from V: matches the recursion', async () => {
    const terminal = [1, 1, 1, 0];
    const r = recipe('ppo', ['rl.whiten=false', 'rl.lambda=0.9', 'rl.gamma=0.95']);
    const result = await ALGORITHM_BY_NAME.ppo.advantages(await inputs(r, rows(terminal), values));
    const expected = gae(0.95, 0.9, terminal);
    expect(result.advantages).toBeAllClose(expected.advantages, { atol: 1e-6 });
    expect(result.returns).toBeAllClose(expected.returns, { atol: 1e-6 });
    const whitenedResult = await ALGORITHM_BY_NAME.ppo.advantages(await inputs(recipe('ppo', ['rl.lambda=0.9', 'rl.gamma=0.95']), rows(terminal), values));
    expect(whitenedResult.advantages).toBeAllClose(whitened(expected.advantages), { atol: 1e-5 });
  });

  it('refuses a batch scored without the critic it declares', async () => {
    await expect(ALGORITHM_BY_NAME.ppo.advantages(await inputs(recipe('ppo'), rows()))).rejects.toThrow(/scored without a critic/);
  });
});

describe('what each method declares', () => {
  const kinds = (terms: readonly LossTerm[]) => terms.map((term) => term.kind);

  it('PPO: policy, reference and critic; values scored; critic-only during warm-up, then critic before policy', () => {
    const r = recipe('ppo', ['rl.criticWarmupSteps=2', 'rl.entropyCoef=0.01']);
    expect(ALGORITHM_BY_NAME.ppo.models.map((m) => [m.name, m.role, m.trained])).toEqual([
      ['policy', 'policy', true],
      ['reference', 'reference', false],
      ['critic', 'critic', true],
    ]);
    expect(ALGORITHM_BY_NAME.ppo.scores).toEqual(['values']);
    expect(ALGORITHM_BY_NAME.ppo.updates(r, 1).map((u) => [u.model, kinds(u.terms)])).toEqual([['critic', ['value']]]);
    expect(ALGORITHM_BY_NAME.ppo.updates(r, 2).map((u) => [u.model, u.lr, kinds(u.terms)])).toEqual([
      ['critic', r.rl.criticLr, ['value']],
      ['policy', r.rl.policyLr, ['ppo-clip', 'entropy']],
    ]);
  });

  it('group methods: no critic, no extra scores; the KL is a loss term only when the recipe places it there', () => {
    for (const name of ['grpo', 'dr-grpo', 'rloo'] as const) {
      const method = ALGORITHM_BY_NAME[name];
      expect(method.models.map((m) => m.role)).toEqual(['policy', 'reference']);
      expect(method.scores).toEqual([]);
      expect(method.updates(recipe(name, ['rl.klPlacement=loss']), 0).map((u) => [u.model, kinds(u.terms)])).toEqual([['policy', ['ppo-clip', 'kl']]]);
      expect(method.updates(recipe(name, ['rl.klPlacement=reward']), 0).map((u) => kinds(u.terms))).toEqual([['ppo-clip']]);
    }
  });

  it('a model config for every declared model: policy-shaped language models, a value-head critic', () => {
    const r = recipe('ppo');
    expect(declaredModels(r, 13).map((m) => [m.name, m.config.head, m.config.width])).toEqual([
      ['policy', 'lm', 32],
      ['reference', 'lm', 32],
      ['critic', 'value', 32],
    ]);
  });

  it('the Dr.GRPO preset sums responses over a constant length', () => {
    expect(resolveRecipe({ preset: 'add-dr-grpo' }).recipe.rl).toMatchObject({
      algorithm: 'dr-grpo',
      lossAggregation: 'seq-mean-token-sum-norm',
      groupSize: 4,
    });
  });
});
