// Rules that span fields. Each names the field to change and the value it conflicts with.

import { genacChecks } from '../algorithms/genac/recipe-checks.ts';
import { declaresRole } from '../algorithms/index.ts';
import { taskChecks, taskLimits } from '../envs/tasks.ts';
import type { GptConfig } from '../model/config.ts';
import { MAX_ROLLOUT_LAG } from '../train/policy-history.ts';
import { parseRoute } from '../train/teachers.ts';
import { compactionChecks } from './compaction.ts';
import type { Recipe } from './schema.ts';

export interface FieldIssue {
  path: string;
  message: string;
}

/** The critic's sizes with 0 ("as the policy") filled in. */
export function criticSizes(r: Recipe): { layers: number; heads: number; width: number } {
  const { policy, critic } = r.model;
  return { layers: critic.layers || policy.layers, heads: critic.heads || policy.heads, width: critic.width || policy.width };
}

/** GPT configs for the policy (LM head) and the critic (value head) of a recipe. */
export function modelConfigs(r: Recipe, vocabSize: number): { policy: GptConfig; critic: GptConfig } {
  const contextLength = r.model.contextLength;
  return {
    policy: { vocabSize, contextLength, ...r.model.policy, head: 'lm' },
    critic: { vocabSize, contextLength, ...criticSizes(r), head: 'value' },
  };
}

export function recipeChecks(r: Recipe): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const { policy } = r.model;
  if (policy.width % policy.heads !== 0) add('model.policy.width', `must be a multiple of model.policy.heads (${policy.heads}), got ${policy.width}`);
  if (declaresRole(r, 'generative-critic')) issues.push(...genacChecks(r));
  if (declaresRole(r, 'critic')) {
    const critic = criticSizes(r);
    const ownShape = r.model.critic.width !== 0 || r.model.critic.heads !== 0;
    if (ownShape && critic.width % critic.heads !== 0)
      add('model.critic.width', `must be a multiple of model.critic.heads (${critic.heads}), got ${critic.width}`);
    if (r.model.critic.init === 'policy')
      for (const key of ['layers', 'heads', 'width'] as const)
        if (critic[key] !== policy[key])
          add(`model.critic.${key}`, `must be 0 or equal model.policy.${key} (${policy[key]}) when model.critic.init is "policy", got ${critic[key]}`);
  }
  // Group baselines compare rollouts of one prompt; a critic or a teacher needs no group, and KTO
  // labels each completion on its own.
  if (!declaresRole(r, 'critic') && !declaresRole(r, 'teacher') && r.rl.algorithm !== 'kto' && r.rl.groupSize < 2)
    add('rl.groupSize', `must be at least 2 for ${r.rl.algorithm} (its baseline compares rollouts of one prompt), got ${r.rl.groupSize}`);
  const rollouts = r.rl.promptsPerIteration * r.rl.groupSize;
  if (rollouts % r.rl.minibatches !== 0)
    add('rl.minibatches', `must divide the ${rollouts} rollouts per iteration (rl.promptsPerIteration × rl.groupSize), got ${r.rl.minibatches}`);
  if (r.rl.algorithm === 'kto' && rollouts < 2)
    add(
      'rl.promptsPerIteration',
      `must give at least 2 completions per iteration for kto (its reference point pairs each prompt with another row's completion), got ${rollouts}`,
    );
  if (r.rl.algorithm === 'kto' && r.kto.source === 'file' && r.kto.file === '')
    add('kto.file', 'must name a JSONL file of {"prompt", "completion", "label"} rows when kto.source is "file"');
  if (r.rl.algorithm === 'kto' && r.kto.source !== 'file' && r.kto.file !== '')
    add('kto.file', `is read only when kto.source is "file" (it is "${r.kto.source}"); set kto.source=file or drop kto.file`);
  if (r.rl.dynamicSampling && r.rl.groupSize < 2)
    add('rl.dynamicSampling', `needs rl.groupSize of at least 2 (a group of one always has equal rewards and would be dropped), got ${r.rl.groupSize}`);
  if (r.rl.dualClip !== 0 && r.rl.dualClip <= 1) add('rl.dualClip', `must be 0 (off) or greater than 1, got ${r.rl.dualClip}`);
  if (r.rl.rolloutLag > MAX_ROLLOUT_LAG)
    add(
      'rl.rolloutLag',
      `must be at most ${MAX_ROLLOUT_LAG}: the trainer keeps the last ${MAX_ROLLOUT_LAG} policies for the rollout-lag simulator, and a lag of ${r.rl.rolloutLag} needs older ones`,
    );
  // Which runs teach is checked when they are loaded (train/teachers.ts); the route can be checked here.
  if (declaresRole(r, 'teacher')) for (const issue of parseRoute(r).issues) add('distill.route', issue);
  // OPID's skills are parsed from shell-call records, which only hidden-test-fs writes, one context per rollout.
  if (r.rl.algorithm === 'opid' && r.task.env !== 'hidden-test-fs')
    add('rl.algorithm', `opid parses skills from shell-call records, which only task.env hidden-test-fs writes; task.env is ${r.task.env}`);
  if (r.rl.algorithm === 'opid' && r.rl.compaction.enabled)
    add('rl.compaction.enabled', 'must be false for opid: its skills are placed into one context per rollout, and a compacted rollout has several');
  issues.push(...compactionChecks(r));
  const sizes = { heldOutSize: r.eval.heldOutSize, oodSize: r.eval.oodSize };
  const task = taskChecks(r.task, sizes);
  issues.push(...task);
  if (task.length === 0) {
    // Character-level tokens: one token per character, plus end-of-sequence.
    const limits = taskLimits(r.task);
    const answer = limits.maxResponseChars + 1;
    if (r.rl.maxNewTokens < answer) add('rl.maxNewTokens', `must be at least ${answer} so the longest (OOD) answer and <eos> fit, got ${r.rl.maxNewTokens}`);
    const needed = limits.maxPromptChars + answer;
    if (r.model.contextLength < needed)
      add(
        'model.contextLength',
        `must be at least ${needed} (longest OOD prompt ${limits.maxPromptChars} + answer and <eos> ${answer}), got ${r.model.contextLength}`,
      );
  }
  return issues;
}
