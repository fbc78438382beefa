// The recipe's broken training tasks (task.hiddenTestFs.defects) and the task-quality filter
// (task.hiddenTestFs.qualityFilter) in the fast tier: bad values are refused naming the field;
// without the filter the broken share of the training stream holds and held-out and OOD tasks stay
// clean; with it, the stream is the unfiltered one minus exactly the tasks the judge rejects, none
// of its episodes' tasks is rejected (judged from the problem the real training environment
// opens), it is the same however it is walked (a resumed run's seeds), and rollout/filtered_tasks
// counts the skipped tasks iteration by iteration.

import { describe, expect, it } from 'vitest';
import { RecipeError, resolveRecipe } from '../../recipe/resolve.ts';
import type { HiddenTestFsEnv } from '../hidden-test-fs/env.ts';
import { taskFiles } from '../hidden-test-fs/files.ts';
import { createTask, type Task } from '../tasks.ts';
import { filteredStream, filteredTasksMetric, MAX_CONSECUTIVE_DROPS } from './filtered-stream.ts';
import { judgeTask } from './judge.ts';

const SHARE = 0.3;
const EPISODES = 300;

function taskOf(sets: readonly string[], seed = 1): Task {
  const { recipe } = resolveRecipe({ preset: 'hidden-ppo', sets: [`seed=${seed}`, ...sets] });
  return createTask(recipe.task, recipe.eval);
}

const broken = (kind = 'tests-disagree') => [`task.hiddenTestFs.defects.kind=${kind}`, `task.hiddenTestFs.defects.share=${SHARE}`];
const seedsOf = (task: Task, runSeed: number, n = EPISODES) => Array.from({ length: n }, (_, i) => task.trainSeed(runSeed, i));

/** The problem each seed's episode opens in `split`, read from the sandbox of one reused environment. */
async function problemsOpened(task: Task, split: 'train' | 'heldOut' | 'ood', seeds: readonly number[]) {
  const env = task.createEnv(split) as HiddenTestFsEnv;
  const out = [];
  for (const seed of seeds) {
    await env.reset(seed);
    const problem = env.sandbox?.problem;
    if (!problem) throw new Error('no sandbox after reset');
    out.push(problem);
    await env.close();
  }
  return out;
}

function recipeError(sets: readonly string[]): string {
  try {
    resolveRecipe({ preset: 'hidden-ppo', sets });
  } catch (e) {
    expect(e).toBeInstanceOf(RecipeError);
    return (e as Error).message;
  }
  throw new Error(`accepted ${sets.join(' ')}`);
}

describe('the recipe fields', () => {
  it('default to no broken tasks and no filter', () => {
    const { recipe } = resolveRecipe({ preset: 'hidden-ppo' });
    expect(recipe.task.hiddenTestFs.defects).toEqual({ kind: 'tests-disagree', share: 0 });
    expect(recipe.task.hiddenTestFs.qualityFilter).toBe(false);
    const task = taskOf([]);
    expect(task.trainTasksDropped).toBeUndefined();
    expect(seedsOf(task, 1, 50)).toEqual(seedsOf(taskOf(['task.hiddenTestFs.qualityFilter=true']), 1, 50));
  });

  it('refuse a kind, a share or a filter that cannot work, naming the field', () => {
    expect(recipeError(['task.hiddenTestFs.defects.kind=typo'])).toMatch(/task\.hiddenTestFs\.defects\.kind/);
    expect(recipeError(['task.hiddenTestFs.defects.share=1.5'])).toMatch(/task\.hiddenTestFs\.defects\.share/);
    expect(recipeError(['task.hiddenTestFs.defects.share=-0.1'])).toMatch(/task\.hiddenTestFs\.defects\.share/);
    expect(recipeError(['task.hiddenTestFs.qualityFilter=maybe'])).toMatch(/task\.hiddenTestFs\.qualityFilter/);
    expect(recipeError(['task.hiddenTestFs.defects.share=1', 'task.hiddenTestFs.qualityFilter=true'])).toMatch(
      /task\.hiddenTestFs\.qualityFilter.*would drop every training task.*defects\.share is 1/,
    );
    // A share of 1 alone is a valid (if odd) stream, and so is the filter at any share below it.
    expect(resolveRecipe({ preset: 'hidden-ppo', sets: ['task.hiddenTestFs.defects.share=1'] }).recipe.task.hiddenTestFs.defects.share).toBe(1);
    expect(
      resolveRecipe({ preset: 'hidden-ppo', sets: [...broken('canary'), 'task.hiddenTestFs.qualityFilter=true'] }).recipe.task.hiddenTestFs.qualityFilter,
    ).toBe(true);
  });
});

describe('without the filter', () => {
  it('breaks about the share of training tasks, of the kind asked, and leaves held-out and OOD tasks clean', async () => {
    const task = taskOf(broken());
    const train = await problemsOpened(task, 'train', seedsOf(task, 1));
    const defective = train.filter((p) => p.defect !== undefined);
    expect(defective.every((p) => p.defect === 'tests-disagree')).toBe(true);
    // 30% of 300 (binomial sd ≈ 8).
    expect(defective.length).toBeGreaterThan(EPISODES * SHARE - 30);
    expect(defective.length).toBeLessThan(EPISODES * SHARE + 30);
    for (const split of ['heldOut', 'ood'] as const) {
      const opened = await problemsOpened(task, split, task.evalSeeds(split));
      expect(opened.length).toBeGreaterThan(0);
      expect(opened.filter((p) => p.defect !== undefined)).toEqual([]);
    }
  });
});

describe('with the filter', () => {
  for (const kind of ['tests-disagree', 'unclear-readme', 'canary']) {
    it(`${kind}: the stream is the unfiltered one less the tasks the judge rejects, and opens none of them`, async () => {
      const unfiltered = taskOf(broken(kind));
      const filtered = taskOf([...broken(kind), 'task.hiddenTestFs.qualityFilter=true']);
      const all = seedsOf(unfiltered, 1, 2 * EPISODES);
      const opened = await problemsOpened(unfiltered, 'train', all);
      const keptSeeds = all.filter((_, i) => judgeTask(taskFiles(opened[i])).keep);
      // The judge rejects exactly the broken tasks (judge.test.ts), so about 70% remain.
      expect(keptSeeds.length).toBe(opened.filter((p) => p.defect === undefined).length);
      const stream = seedsOf(filtered, 1);
      expect(stream).toEqual(keptSeeds.slice(0, EPISODES));
      const problems = await problemsOpened(filtered, 'train', stream);
      expect(problems.filter((p) => p.defect !== undefined || !judgeTask(taskFiles(p)).keep)).toEqual([]);
    });
  }

  it('is deterministic: two tasks, a run resumed mid-stream, and another run seed', () => {
    const sets = [...broken(), 'task.hiddenTestFs.qualityFilter=true'];
    const first = seedsOf(taskOf(sets), 1);
    expect(seedsOf(taskOf(sets), 1)).toEqual(first);
    // A resumed run asks for its cursor first, with nothing walked before it.
    const resumed = taskOf(sets);
    expect([250, 7, 299].map((i) => resumed.trainSeed(1, i))).toEqual([first[250], first[7], first[299]]);
    const other = seedsOf(taskOf(sets, 2), 2);
    expect(other).not.toEqual(first);
    expect(seedsOf(taskOf(sets, 2), 2)).toEqual(other);
  });

  it('counts the tasks it skipped, per iteration, as rollout/filtered_tasks', async () => {
    const unfiltered = taskOf(broken());
    const filtered = taskOf([...broken(), 'task.hiddenTestFs.qualityFilter=true']);
    const dropped = filtered.trainTasksDropped;
    if (!dropped) throw new Error('a filtered task reports its drops');
    const prompts = 16;
    const iterations = 10;
    const perIteration = Array.from(
      { length: iterations },
      (_, k) => filteredTasksMetric(dropped, 1, k * prompts, prompts)['rollout/filtered_tasks'] as number,
    );
    // Walk the unfiltered stream to the last filtered episode: every task passed on the way that is not in the filtered stream was skipped.
    const kept = new Set(seedsOf(filtered, 1, iterations * prompts));
    const last = filtered.trainSeed(1, iterations * prompts - 1);
    const walked = [];
    for (let i = 0; walked.at(-1) !== last; i++) walked.push(unfiltered.trainSeed(1, i));
    const skipped = walked.filter((s) => !kept.has(s));
    expect(perIteration.reduce((a, b) => a + b, 0)).toBe(skipped.length);
    expect((await problemsOpened(unfiltered, 'train', skipped)).every((p) => p.defect === 'tests-disagree')).toBe(true);
    // The first iteration's count is the skips before its last prompt; nothing is skipped before episode 0.
    expect(dropped(1, -1)).toBe(0);
    expect(perIteration[0]).toBe(dropped(1, prompts - 1));
    // About share / (1 − share) skips per kept task: 16 prompts × 3/7 ≈ 6.9 per iteration.
    expect(perIteration.reduce((a, b) => a + b, 0) / iterations).toBeGreaterThan(3);
    expect(perIteration.reduce((a, b) => a + b, 0) / iterations).toBeLessThan(12);
  });

  it('gives up with a clear error when the judge keeps nothing', () => {
    const stream = filteredStream(
      (_run, i) => i,
      () => false,
    );
    expect(() => stream.seed(1, 0)).toThrow(new RegExp(`rejected ${MAX_CONSECUTIVE_DROPS} training tasks in a row`));
  });
});
