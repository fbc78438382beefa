// Evaluation counts problems, not samples: with compaction one held-out problem is several segments,
// and it is solved when its final segment is. Host-side, on LongStream with the honest scripted
// policy (every problem solved) and with one that answers wrong on some streams.

import { describe, expect, it } from 'vitest';
import { LONG_STREAM_COMPACTION } from '../envs/long-stream/demo.ts';
import { firstRollouts } from '../envs/rollouts.ts';
import { createTask } from '../envs/tasks.ts';
import { longStreamPolicy } from '../envs/testing/long-stream-policy.ts';
import { scriptedSampler } from '../envs/testing/scripted-sampler.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { evaluate } from './evaluate.ts';
import { rolloutLimits } from './rollout-limits.ts';

describe('evaluate with compaction', () => {
  const recipe = resolveRecipe({ preset: 'stream-ppo' }).recipe;
  const task = createTask(recipe.task, { heldOutSize: 12, oodSize: 4 });
  const tokenizer = new CharTokenizer(task.vocabulary);
  const limits = rolloutLimits(recipe, 'eval');

  it('the recipe turns compaction on, and the evaluation limits carry it without the training cap on segments', () => {
    expect(limits.compaction).toEqual({ ...LONG_STREAM_COMPACTION, maxSegments: undefined });
    expect(rolloutLimits(recipe, 'train').compaction).toEqual(LONG_STREAM_COMPACTION);
  });

  it('one result per problem from its final segment; the response length sums every segment', async () => {
    const honest = scriptedSampler(tokenizer, (ctx) => longStreamPolicy(ctx, LONG_STREAM_COMPACTION.keepSteps));
    const result = await evaluate(task, 'heldOut', tokenizer, honest, limits);
    expect(result.finals).toHaveLength(12);
    expect(result.samples.length).toBeGreaterThanOrEqual(3 * 12);
    expect(result.success).toBe(1);
    const actions = result.samples.reduce((n, s) => n + s.actionMask.reduce((a, m) => a + m, 0), 0);
    expect(result.responseLength).toBeCloseTo(actions / 12, 12);
    expect(firstRollouts(result.samples, 2, (s) => s).map((s) => [s.rolloutId, s.segmentIndex])).toEqual(
      result.samples.filter((s) => s.rolloutId < 2).map((s) => [s.rolloutId, s.segmentIndex]),
    );
  });

  it('a wrong final answer fails its problem however many segments were right', async () => {
    let answers = 0;
    const wrongEveryThird = scriptedSampler(tokenizer, (ctx) => {
      const step = longStreamPolicy(ctx, LONG_STREAM_COMPACTION.keepSteps);
      if (step.ending !== 'eos') return step;
      answers++;
      return answers % 3 === 0 ? { text: String((Number(step.text) + 1) % 10), ending: 'eos' } : step;
    });
    const result = await evaluate(task, 'heldOut', tokenizer, wrongEveryThird, limits);
    expect(answers).toBe(12);
    expect(result.success).toBeCloseTo(8 / 12, 12);
  });
});
