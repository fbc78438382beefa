// The loop trains only valid rollouts: a failed rollout leaves its group, a group with fewer than 2
// valid rollouts is dropped for a group method, an iteration with nothing left takes no step and
// logs no NaN, truncated importance sampling reports its weights, and a task filter's skipped
// tasks are logged per iteration (rollout/filtered_tasks) while its kept ones are sampled. On the GPU (SwiftShader in
// CI), with the real GRPO method and a tiny untrained policy.

import { describe, expect, it } from 'vitest';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import type { Environment } from '../envs/environment.ts';
import { filteredStream } from '../envs/task-quality/filtered-stream.ts';
import type { Task } from '../envs/tasks.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { RlContext } from './rl-context.ts';
import { rlIteration } from './rl-iteration.ts';
import { testRlContext } from './testing/rl-context.ts';

/** The task, except that the environments of the episodes `fails(k)` picks (k counts createEnv calls) throw in step. */
function flakyTask(task: Task, fails: (k: number) => boolean): Task {
  let k = 0;
  return {
    ...task,
    vocabulary: task.vocabulary,
    limits: task.limits,
    createEnv(split) {
      const env = task.createEnv(split);
      if (!fails(k++)) return env;
      const broken: Environment = {
        name: env.name,
        verifier: env.verifier,
        reset: (seed) => env.reset(seed),
        step: () => {
          throw new Error('the tool crashed');
        },
        close: () => env.close(),
      };
      return broken;
    },
  };
}

async function context(sets: string[], fails: (k: number) => boolean): Promise<RlContext> {
  const recipe = resolveRecipe({
    preset: 'tiny',
    sets: ['rl.algorithm=grpo', 'rl.promptsPerIteration=3', 'rl.groupSize=2', 'rl.epochs=1', 'rl.minibatches=2', ...sets],
  }).recipe;
  return (await testRlContext(recipe, ALGORITHM_BY_NAME.grpo, { task: (base) => flakyTask(base, fails) })).ctx;
}

describe('rlIteration trains only valid rollouts', () => {
  it('a failed rollout leaves its group; the group left with one rollout is dropped; the rest train', async () => {
    // Episodes 0..5 are groups {0,1}, {2,3}, {4,5}: episode 1 fails, so group 0 keeps one rollout.
    // The untrained policy solves nothing, so its group advantages are 0: a KL term in the loss
    // makes the step move the weights.
    const ctx = await context(['rl.klPlacement=loss'], (k) => k === 1);
    const policy = ctx.models.byName.get('policy');
    const before = await policy.readParameters();
    const { metrics, samples } = await rlIteration(ctx, 0, 0);
    expect(metrics['rollout/failed_rollouts']).toBe(1);
    expect(metrics['rollout/dropped_groups']).toBe(1);
    expect(metrics['rollout/dropped_samples']).toBe(2);
    expect(metrics['rollout/trained_samples']).toBe(4);
    expect(samples[1].sample.failure?.message).toBe('step failed: the tool crashed');
    // Dropped samples carry no per-token channels; trained ones do.
    expect(Object.keys(samples[0].channels)).toEqual([]);
    expect(Object.keys(samples[2].channels).sort()).toEqual(['advantage', 'kl', 'logprob']);
    expect(Number.isFinite(metrics['policy/loss'])).toBe(true);
    expect(await policy.readParameters()).not.toEqual(before);
  });

  it('when every rollout fails the iteration takes no step, and nothing it logs is NaN', async () => {
    const ctx = await context([], () => true);
    const policy = ctx.models.byName.get('policy');
    const before = await policy.readParameters();
    const { metrics } = await rlIteration(ctx, 0, 0);
    expect(metrics['rollout/trained_samples']).toBe(0);
    expect(metrics['rollout/failed_rollouts']).toBe(6);
    for (const [name, value] of Object.entries(metrics)) expect(Number.isFinite(value), `${name} = ${value}`).toBe(true);
    expect(Object.keys(metrics).some((k) => k === 'policy/loss' || k === 'rollout/reward')).toBe(false);
    expect(await policy.readParameters()).toEqual(before);
  });

  it('rl.tis reports its weights and the mismatch metrics; the sampler and trainer agree closely here', async () => {
    const ctx = await context(['rl.tis=2'], () => false);
    const { metrics } = await rlIteration(ctx, 0, 0);
    expect(metrics['rollout/trained_samples']).toBe(6);
    // Same weights, same temperature, no top-k: π_old ≈ π_roll, so every weight is ≈ 1 and none is capped.
    expect(metrics['policy/tis_weight_mean']).toBeCloseTo(1, 3);
    expect(metrics['policy/tis_clip_frac']).toBe(0);
    expect(metrics['policy/rollout_logp_diff_max']).toBeLessThan(1e-3);
    expect(metrics['policy/rollout_logp_mismatch_frac']).toBe(0);
    expect(metrics['policy/rollout_logp_diff']).toBeLessThanOrEqual(metrics['policy/rollout_logp_diff_max'] as number);
    expect('rollout/filtered_tasks' in metrics).toBe(false);
  });

  it('a filtered stream samples only the tasks it keeps and logs the ones it skipped, iteration by iteration', async () => {
    // A stand-in judge that keeps even seeds only: about half the tasks are skipped.
    let stream: ReturnType<typeof filteredStream> | undefined;
    const filtered = (base: Task): Task => {
      const s = filteredStream(base.trainSeed, (seed) => seed % 2 === 0);
      stream = s;
      return { ...base, trainSeed: s.seed, trainTasksDropped: s.droppedThrough };
    };
    const recipe = resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=grpo', 'rl.promptsPerIteration=3', 'rl.groupSize=2', 'rl.epochs=1'] }).recipe;
    const { ctx } = await testRlContext(recipe, ALGORITHM_BY_NAME.grpo, { task: filtered });
    if (!stream) throw new Error('the task was built');
    const runSeed = recipe.seed;
    for (const [iteration, cursor] of [
      [0, 0],
      [1, 3],
    ]) {
      const { metrics, samples } = await rlIteration(ctx, iteration, cursor);
      expect(samples.every((s) => s.sample.seed % 2 === 0)).toBe(true);
      expect(samples.map((s) => s.sample.seed)).toEqual([0, 0, 1, 1, 2, 2].map((p) => stream?.seed(runSeed, cursor + p)));
      expect(metrics['rollout/filtered_tasks']).toBe(stream.droppedThrough(runSeed, cursor + 2) - stream.droppedThrough(runSeed, cursor - 1));
    }
    expect(stream.droppedThrough(runSeed, 5)).toBeGreaterThan(0);
  });
});
