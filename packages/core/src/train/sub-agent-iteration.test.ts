// One RL iteration through the real trainer path (sampler, scorer, GRPO advantages, update step) on
// a task whose environment offers the delegate tool. The root's first action is scripted (a delegate
// call, which an untrained policy would never write); every other token is the policy's own. Each
// tree is one group member: 2 prompts × 2 rollouts give 4 trees of 2 contexts, every context trains,
// the per-rollout metrics count roots, and the step moves the weights. On the GPU (SwiftShader in CI).

import { describe, expect, it } from 'vitest';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { DELEGATE_TOOL, SUB_AGENT_HEADER } from '../envs/delegate.ts';
import type { BatchSampler, Generation } from '../envs/episode.ts';
import { actionTokenCount } from '../envs/sample.ts';
import { delegatingEnv } from '../envs/testing/delegating-env.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { rlIteration } from './rl-iteration.ts';
import { testRlContext } from './testing/rl-context.ts';

describe('an RL iteration with sub-agents', () => {
  it('trains every context of every tree, one group member per tree', async () => {
    // hidden-test-fs's vocabulary (printable ASCII and the tool-call tokens) fits the delegating environment.
    const recipe = resolveRecipe({
      preset: 'hidden-ppo',
      sets: ['rl.algorithm=grpo', 'rl.promptsPerIteration=2', 'rl.groupSize=2', 'rl.epochs=1', 'rl.minibatches=1', 'rl.klPlacement=loss', 'rl.maxTurns=3'],
    }).recipe;
    const { ctx } = await testRlContext(recipe, ALGORITHM_BY_NAME.grpo, { task: (base) => ({ ...base, createEnv: () => delegatingEnv() }) });
    const tokenizer = new CharTokenizer(ctx.task.vocabulary);
    const inner = ctx.sampler.generate.bind(ctx.sampler);
    const call = tokenizer.encode(`<tool_call>${DELEGATE_TOOL} add 1 2</tool_call>`);
    ctx.sampler.generate = async (...[contexts, budgets, stops, keys]: Parameters<BatchSampler['generate']>): Promise<Generation[]> => {
      const scripted = contexts.map((c) => {
        const text = tokenizer.decode(c);
        return !text.startsWith(SUB_AGENT_HEADER) && !text.includes('<tool_result>');
      });
      const rows = contexts.flatMap((_, i) => (scripted[i] ? [] : [i]));
      const drawn = rows.length
        ? await inner(
            rows.map((i) => contexts[i]),
            rows.map((i) => budgets[i]),
            rows.map((i) => stops[i]),
            keys && rows.map((i) => keys[i]),
          )
        : [];
      return contexts.map((_, i) => (scripted[i] ? { ids: call, logprobs: call.map(() => -1), ending: 'stop' as const } : drawn[rows.indexOf(i)]));
    };
    const policy = ctx.models.byName.get('policy');
    const before = await policy.readParameters();
    const { metrics, samples } = await rlIteration(ctx, 0, 0);
    const children = samples.filter((s) => s.sample.parent);
    expect(children.map((s) => s.sample.branch)).toEqual(['0.1', '0.1', '0.1', '0.1']);
    expect(samples).toHaveLength(8);
    // Every context of every tree trains; no group is dropped.
    expect(metrics['rollout/dropped_groups']).toBe(0);
    expect(metrics['rollout/trained_samples']).toBe(8);
    expect(Object.keys(children[0].channels).sort()).toEqual(['advantage', 'kl', 'logprob']);
    // Per-rollout metrics come from the 4 roots; the response length counts every context's tokens.
    const roots = samples.filter((s) => !s.sample.parent).map((s) => s.sample);
    expect(roots).toHaveLength(4);
    expect(metrics['rollout/reward']).toBe(roots.reduce((n, s) => n + s.reward, 0) / 4);
    expect(metrics['rollout/response_length']).toBe(samples.reduce((n, s) => n + actionTokenCount(s.sample), 0) / 4);
    expect(Number.isFinite(metrics['policy/loss'])).toBe(true);
    expect(await policy.readParameters()).not.toEqual(before);
  });
});
