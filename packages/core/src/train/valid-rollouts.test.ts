// Which rollouts train: failed ones and ones with no trainable token leave their group, a group
// method drops groups left with fewer than 2, dynamic sampling drops all-equal groups, and a batch
// that shrank still splits into minibatches that take every row once.

import { describe, expect, it } from 'vitest';
import { failedSample, type Sample, SampleBuilder } from '../envs/sample.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { minibatchBounds, selectTrainable } from './valid-rollouts.ts';

/** A finished single-turn rollout of group `groupId` with `reward` and `actions` sampled tokens. */
function rollout(rolloutId: number, groupId: number, reward: number, actions = 2): Sample {
  const b = new SampleBuilder({ seed: groupId, rolloutId, groupId }, 'Q:', [1, 2]);
  b.addAction(new Array(actions).fill(5), new Array(actions).fill(-0.5), 'x', 'eos');
  b.addReward(reward);
  return b.finish({ status: 'completed' });
}
const failed = (rolloutId: number, groupId: number) => failedSample({ seed: groupId, rolloutId, groupId }, { source: 'environment', message: 'boom' });

describe('selectTrainable', () => {
  // Group 0: one failure, two valid. Group 1: one valid and one with no action token. Group 2: all equal.
  const batch = [rollout(0, 0, 1), failed(1, 0), rollout(2, 0, 0), rollout(3, 1, 1), rollout(4, 1, 0, 0), rollout(5, 2, 1), rollout(6, 2, 1)];

  it('a group method keeps groups with at least 2 valid rollouts and counts what it left out', () => {
    const { kept, metrics } = selectTrainable(batch, { grouped: true, dynamicSampling: false });
    expect(kept).toEqual([0, 2, 5, 6]);
    expect(metrics).toEqual({
      'rollout/failed_rollouts': 1,
      'rollout/aborted_rollouts': 0,
      'rollout/untrainable_samples': 1,
      'rollout/dropped_groups': 1,
      'rollout/dropped_samples': 3,
      'rollout/trained_samples': 4,
    });
  });

  it('a rollout of several samples (segments, sub-agent contexts) is one group member and one failure', () => {
    // Group 0: rollout 0 in two samples, nothing else valid (rollout 1 failed in two samples). Group 1: two rollouts.
    const twoPart = [rollout(0, 0, 1), rollout(0, 0, 1), failed(1, 0), failed(1, 0), rollout(2, 1, 1), rollout(3, 1, 0)];
    const { kept, metrics } = selectTrainable(twoPart, { grouped: true, dynamicSampling: false });
    expect(kept).toEqual([4, 5]);
    expect(metrics['rollout/failed_rollouts']).toBe(1);
    expect(metrics['rollout/dropped_groups']).toBe(1);
    expect(selectTrainable(twoPart, { grouped: false, dynamicSampling: false }).kept).toEqual([0, 1, 4, 5]);
  });

  it('dynamic sampling also drops groups whose rewards are all equal (DAPO)', () => {
    const { kept, metrics } = selectTrainable(batch, { grouped: true, dynamicSampling: true });
    expect(kept).toEqual([0, 2]);
    expect(metrics['rollout/dropped_groups']).toBe(2);
    expect(metrics['rollout/trained_samples']).toBe(2);
  });

  it('a method without groups (PPO) keeps every valid rollout, a lone one included', () => {
    const { kept, metrics } = selectTrainable(batch, { grouped: false, dynamicSampling: false });
    expect(kept).toEqual([0, 2, 3, 5, 6]);
    expect(metrics['rollout/dropped_groups']).toBe(0);
  });

  it('with nothing to drop, every sample trains in its order (the loop is then what it was)', () => {
    const clean = [rollout(0, 0, 1), rollout(1, 0, 0), rollout(2, 1, 0), rollout(3, 1, 1)];
    for (const grouped of [false, true]) expect(selectTrainable(clean, { grouped, dynamicSampling: true }).kept).toEqual([0, 1, 2, 3]);
  });

  it('an aborted rollout leaves its group as a failed one does, counted apart; truncated ones train', () => {
    const aborted = failedSample({ seed: 0, rolloutId: 9, groupId: 0 }, { source: 'sampler', message: 'evicted' });
    const cut = new SampleBuilder({ seed: 0, rolloutId: 8, groupId: 0 }, 'Q:', [1, 2]);
    cut.addAction([5, 5], [-0.5, -0.5], 'x', 'length');
    cut.addReward(0);
    const truncated = cut.finish({ status: 'truncated' });
    expect([aborted.status, truncated.status]).toEqual(['aborted', 'truncated']);
    const { kept, metrics } = selectTrainable([rollout(0, 0, 1), aborted, truncated, failed(3, 0)], { grouped: true, dynamicSampling: false });
    expect(kept).toEqual([0, 2]);
    expect(metrics).toMatchObject({ 'rollout/failed_rollouts': 1, 'rollout/aborted_rollouts': 1, 'rollout/trained_samples': 2 });
  });

  it('an iteration where everything failed trains nothing', () => {
    const { kept, metrics } = selectTrainable([failed(0, 0), failed(1, 0)], { grouped: true, dynamicSampling: false });
    expect(kept).toEqual([]);
    expect(metrics['rollout/dropped_samples']).toBe(2);
  });
});

describe('minibatchBounds', () => {
  it('equal slices when the minibatches divide the batch (the recipe requires it of a full batch)', () => {
    expect(minibatchBounds(8, 2)).toEqual([
      [0, 4],
      [4, 8],
    ]);
    expect(minibatchBounds(12, 3)).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
    ]);
  });

  it('a shrunk batch: near-equal parts covering every row once; no empty minibatch', () => {
    for (let B = 0; B <= 13; B++) {
      for (const M of [1, 2, 3, 4, 8]) {
        const bounds = minibatchBounds(B, M);
        const sizes = bounds.map(([a, b]) => b - a);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(B);
        expect(sizes.every((n) => n > 0)).toBe(true);
        if (sizes.length > 0) expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect(bounds.length).toBe(Math.min(B, M));
        for (let k = 1; k < bounds.length; k++) expect(bounds[k][0]).toBe(bounds[k - 1][1]);
      }
    }
  });
});

describe('the recipe fields', () => {
  it('rl.dynamicSampling needs groups of at least 2; both new fields default off', () => {
    expect(() => resolveRecipe({ preset: 'tiny', sets: ['rl.dynamicSampling=true'] })).toThrow(
      /rl.dynamicSampling \(from --set\) needs rl.groupSize of at least 2 \(a group of one always has equal rewards and would be dropped\), got 1/,
    );
    const { rl } = resolveRecipe({ preset: 'add-grpo', sets: ['rl.dynamicSampling=true', 'rl.tis=2'] }).recipe;
    expect([rl.dynamicSampling, rl.tis]).toEqual([true, 2]);
    expect(resolveRecipe({ preset: 'tiny' }).recipe.rl).toMatchObject({ dynamicSampling: false, tis: 0 });
  });
});
