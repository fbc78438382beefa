// View helpers that decide what a learner sees: the colour scale, number formats, the dashboard's
// series, the recipe panel's per-field errors, the equations' "next action token".

import { resolveRecipe } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { axisLabels, yRange } from './chart.ts';
import { channelOffset, divergingColor } from './colors.ts';
import { recipeDiff } from './compare.ts';
import { alignSeries, metricSeries } from './dashboard.ts';
import { fmt, fmtSigned } from './format.ts';
import { nextAction } from './gae-equations.ts';
import { parseSteps, phasesOf } from './playground.ts';
import { applyEdit, checkChoice, strayErrors } from './recipe-panel.ts';
import { rolloutInputs } from './token-advantage.ts';

describe('colour scale', () => {
  it('runs red → near-white → blue and clamps', () => {
    expect(divergingColor(-1)).toBe('rgb(178, 24, 43)');
    expect(divergingColor(0)).toBe('rgb(247, 247, 247)');
    expect(divergingColor(1)).toBe('rgb(33, 102, 172)');
    expect(divergingColor(7)).toBe(divergingColor(1));
    expect(divergingColor(Number.NaN)).toBe(divergingColor(0));
  });
  it('centres ratios at 1 on a log axis', () => {
    expect(channelOffset('ratio', 2)).toBeCloseTo(-channelOffset('ratio', 0.5), 12);
    expect(channelOffset('advantage', -0.3)).toBe(-0.3);
  });
});

describe('formats', () => {
  it('prints NaN and infinities, signs and magnitudes', () => {
    expect(fmt(Number.NaN)).toBe('NaN');
    expect(fmt(-Infinity)).toBe('−∞');
    expect(fmt(-0.25)).toBe('−0.250');
    expect(fmt(1010)).toBe('1010');
    expect(fmt(0.00002)).toBe('2.00e−5');
    expect(fmtSigned(0.5, 2)).toBe('+0.50');
  });
});

describe('dashboard series', () => {
  it('takes RL rows that logged the metric, in order, and nothing else', () => {
    const records = [
      { phase: 'sft' as const, step: 0, time_s: 0, metrics: { 'rollout/reward': 9 } },
      { phase: 'rl' as const, step: 0, time_s: 1, metrics: { 'rollout/reward': 0.1 } },
      { phase: 'rl' as const, step: 1, time_s: 2, metrics: {} },
      { phase: 'rl' as const, step: 2, time_s: 3, metrics: { 'rollout/reward': Number.NaN } },
    ];
    const [xs, ys] = metricSeries(records, 'rollout/reward');
    expect(xs).toEqual([0, 2]);
    expect(ys[0]).toBe(0.1);
    expect(ys[1]).toBeNaN();
  });
});

describe('recipe panel checks', () => {
  it('accepts a preset and reports each bad edit on its own field', () => {
    expect(checkChoice({ recipe: 'tiny', seed: 3, sets: [] }).recipe?.seed).toBe(3);
    const check = checkChoice({ recipe: 'tiny', seed: undefined, sets: ['rl.lambda=1.5', 'rl.gamma=abc'] });
    expect(check.recipe).toBeNull();
    expect(check.errors.get('rl.lambda')?.join()).toMatch(/must be a number in \[0, 1\], got 1.5/);
    expect(check.errors.get('rl.gamma')?.join()).toMatch(/must be a number in \[0, 1\], got "abc"/);
    expect(check.raw.get('rl.gamma')).toBe('abc');
    // Cross-field rules (core checks them once every field is in range) land on their field too.
    expect(
      checkChoice({ recipe: 'tiny', seed: undefined, sets: ['rl.minibatches=3'] })
        .errors.get('rl.minibatches')
        ?.join(),
    ).toMatch(/must divide the 128 rollouts/);
  });

  it('drops an edit that returns a field to the preset value', () => {
    const base = resolveRecipe({ preset: 'tiny' }).recipe;
    const choice = { recipe: 'tiny', seed: undefined, sets: ['rl.lambda=0.5'] };
    expect(applyEdit(choice, base, 'rl.lambda', '0.95')).toEqual([]);
    expect(applyEdit(choice, base, 'rl.gamma', '0.9')).toEqual(['rl.lambda=0.5', 'rl.gamma=0.9']);
  });
});

describe('GAE equations', () => {
  it('links an action token to the next action token across observations', () => {
    const mask = [0, 1, 1, 0, 0, 1];
    expect(nextAction(mask, 2)).toBe(5);
    expect(nextAction(mask, 1)).toBe(2);
    expect(nextAction(mask, 5)).toBeNull();
  });
});

describe('chart axes', () => {
  it('labels ticks with the decimals their spacing needs, exponents when tiny or huge', () => {
    expect(axisLabels([1.268, 1.27, 1.272])).toEqual(['1.268', '1.270', '1.272']);
    expect(axisLabels([0, 50, 100])).toEqual(['0', '50', '100']);
    expect(axisLabels([0, 0.25, 0.5])).toEqual(['0.00', '0.25', '0.50']);
    expect(axisLabels([-0.003, 0, 0.003])).toEqual(['-3e-3', '0', '3e-3']);
    expect(axisLabels([-2e6, -1e6, 0])).toEqual(['-2e6', '-1e6', '0']);
  });
  it('gives a flat series a visible range', () => {
    expect(yRange(0, 0)).toEqual([-1, 1]);
    expect(yRange(2, 2)).toEqual([1.8, 2.2]);
    expect(yRange(0, 1)).toEqual([-0.08, 1.08]);
  });
});

describe('the web UI v2 helpers', () => {
  it('lists every recipe problem at once: schema errors, then the cross-field rules on the rest', () => {
    const check = checkChoice({ recipe: 'tiny', seed: undefined, sets: ['rl.lambda=1.5', 'rl.minibatches=3', 'model.policy.dModel=33'] });
    expect([...check.errors.keys()].sort()).toEqual(['model.policy.dModel', 'rl.lambda', 'rl.minibatches']);
    expect(strayErrors(check).map(([path]) => path)).toEqual(['model.policy.dModel']);
    expect(checkChoice({ recipe: 'nope', seed: undefined, sets: [] }).errors.get('preset')?.[0]).toMatch(/^There is no preset "nope"/);
  });

  it('reads a Run N field that may be empty while typing', () => {
    expect(parseSteps('')).toBeNull();
    expect(parseSteps('0')).toBeNull();
    expect(parseSteps('2.5')).toBeNull();
    expect(parseSteps(' 20 ')).toBe(20);
  });

  it('diffs recipes field by field and aligns overlaid series on the union of steps', () => {
    expect(recipeDiff([{ rl: { algorithm: 'ppo', lambda: 0.95 } }, { rl: { algorithm: 'grpo', lambda: 0.95 } }])).toEqual([
      { path: 'rl.algorithm', values: ['"ppo"', '"grpo"'] },
    ]);
    expect(
      alignSeries([
        [
          [1, 2],
          [10, 20],
        ],
        [
          [2, 3],
          [5, 6],
        ],
      ]),
    ).toEqual([
      [1, 2, 3],
      [10, 20, null],
      [null, 5, 6],
    ]);
  });

  it('phases: SFT, then the critic warm-up for PPO, then RL', () => {
    const recipe = resolveRecipe({ preset: 'add-ppo' }).recipe;
    expect(phasesOf(recipe, { phase: 'eval', step: 0, total: 200 }).map((p) => `${p.name}:${p.state}`)).toEqual([
      'SFT warm start:done',
      'critic warm-up:current',
      'RL (PPO):todo',
    ]);
    expect(phasesOf(resolveRecipe({ preset: 'add-grpo' }).recipe, null).map((p) => p.name)).toEqual(['SFT warm start', 'RL (GRPO)']);
  });

  it('rebuilds a rollout’s per-token rewards as the trainer places them', () => {
    const sample = {
      phase: 'rl' as const,
      step: 1,
      rolloutId: 0,
      groupId: 0,
      seed: 0,
      prompt: '1+2=',
      turns: [],
      reward: 1,
      done: true,
      tokens: [0, 1, 2],
      roles: 'paa',
      channels: { value: [9, 0.5, 0.6], kl: [0, 0.2, -0.1] },
    };
    const inputs = rolloutInputs(sample, { rl: { algorithm: 'ppo', gamma: 1, lambda: 0.95, klCoef: 0.1, klPlacement: 'reward', klEstimator: 'k1' } });
    expect(typeof inputs).toBe('object');
    if (typeof inputs === 'string') return;
    expect(inputs.actionMask).toEqual([0, 1, 1]);
    expect(inputs.values).toEqual([0, 0.5, 0.6]);
    expect(inputs.rewards[1]).toBeCloseTo(-0.02, 12);
    expect(inputs.rewards[2]).toBeCloseTo(1 + 0.01, 12);
    expect(rolloutInputs(sample, { rl: { algorithm: 'grpo', gamma: 1, lambda: 1 } })).toMatch(/^GRPO does not use GAE/);
    // k3 is the kernels' estimator (expm1, clamped): e^{−Δ} − 1 + Δ on Δ = 0.2.
    const k3 = rolloutInputs(sample, { rl: { algorithm: 'ppo', gamma: 1, lambda: 0.95, klCoef: 0.1, klPlacement: 'reward', klEstimator: 'k3' } });
    if (typeof k3 === 'string') throw new Error(k3);
    expect(k3.rewards[1]).toBeCloseTo(-0.1 * (Math.exp(-0.2) - 1 + 0.2), 12);
  });
});
