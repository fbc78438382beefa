// View helpers that decide what a learner sees: the colour scale, number formats, the dashboard's
// series, the recipe panel's per-field errors, the equations' "next action token".

import { resolveRecipe } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { axisLabels, yRange } from './chart.ts';
import { channelOffset, divergingColor } from './colors.ts';
import { metricSeries } from './dashboard.ts';
import { fmt, fmtSigned } from './format.ts';
import { nextAction } from './gae-equations.ts';
import { applyEdit, checkChoice } from './recipe-panel.ts';

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
    expect(axisLabels([-0.003, 0, 0.003])).toEqual(['-3e-3', '0', '3e-3']);
    expect(axisLabels([-2e6, -1e6, 0])).toEqual(['-2e6', '-1e6', '0']);
  });
  it('gives a flat series a visible range', () => {
    expect(yRange(0, 0)).toEqual([-1, 1]);
    expect(yRange(2, 2)).toEqual([1.8, 2.2]);
    expect(yRange(0, 1)).toEqual([-0.08, 1.08]);
  });
});
