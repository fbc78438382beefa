// What a GenAC recipe must satisfy beyond the schema, each issue naming the field to change: the
// critic's scripted reasoning reads arithmetic prompts only, its prompt and answer must fit the
// context, and its sizes (model.critic.*, 0 = as the policy) must make a valid GPT.

import { taskLimits } from '../../envs/tasks.ts';
import type { FieldIssue } from '../../recipe/checks.ts';
import type { Recipe } from '../../recipe/schema.ts';
import { longestCriticPrompt } from './critic-prompt.ts';

/** Tasks whose prompts are "a+b=" or "a-b=", which the scripted reasoning (critic-data.ts) reads. */
const ARITHMETIC_TASKS: readonly Recipe['task']['env'][] = ['addition', 'subtraction', 'mix'];

export function genacChecks(r: Recipe): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!ARITHMETIC_TASKS.includes(r.task.env)) {
    issues.push({
      path: 'task.env',
      message: `must be ${ARITHMETIC_TASKS.join(', ')} for genac (its critic's scripted reasoning reads "a+b=" and "a-b=" prompts), got ${r.task.env}`,
    });
    return issues;
  }
  const { policy, critic } = r.model;
  const heads = critic.heads || policy.heads;
  const width = critic.width || policy.width;
  if (width % heads !== 0) issues.push({ path: 'model.critic.width', message: `must be a multiple of the critic's heads (${heads}), got ${width}` });
  const prompt = longestCriticPrompt(taskLimits(r.task).maxPromptChars, { layers: policy.layers, width: policy.width });
  const needed = prompt + r.genac.criticTokens;
  if (r.model.contextLength < needed)
    issues.push({
      path: 'model.contextLength',
      message: `must be at least ${needed} for genac (its longest critic prompt ${prompt} + genac.criticTokens ${r.genac.criticTokens}), got ${r.model.contextLength}`,
    });
  return issues;
}
