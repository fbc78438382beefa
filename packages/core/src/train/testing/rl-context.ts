// A hand-built RlContext for tests of one RL iteration, without the Trainer: the recipe's task and
// tokenizer, a fresh policy (init seed 1) with a frozen copy of it as the reference, and the real
// sampler, scorer and update steps on the test GPU. Tests add what their case needs by spreading the
// result (a rollout-lag history, teachers) or pass a task of their own (one whose tool crashes).

import { testGpu } from '@horizon/kernels/testing';
import type { Algorithm } from '../../algorithms/algorithm.ts';
import { createTask, type Task } from '../../envs/tasks.ts';
import type { GptConfig } from '../../model/config.ts';
import { Generator } from '../../model/generate.ts';
import { Gpt } from '../../model/gpt.ts';
import { AdamW } from '../../model/optimizer.ts';
import { modelConfigs } from '../../recipe/checks.ts';
import type { Recipe } from '../../recipe/schema.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { GpuSampler } from '../gpu-sampler.ts';
import type { RlContext } from '../rl-context.ts';
import { rolloutLimits } from '../rollout-limits.ts';
import { Scorer } from '../scoring.ts';
import { UpdateSteps } from '../update-steps.ts';

export interface TestRlContext {
  ctx: RlContext;
  policy: Gpt;
  reference: Gpt;
  /** The policy's configuration (a teacher of the same shape uses it too). */
  config: GptConfig;
}

/** The seed of the policy's initial weights. */
export const TEST_POLICY_SEED = 1;

export async function testRlContext(recipe: Recipe, algorithm: Algorithm, options: { task?: (base: Task) => Task } = {}): Promise<TestRlContext> {
  const gpu = await testGpu();
  const base = createTask(recipe.task, recipe.eval);
  const task = options.task ? options.task(base) : base;
  const tokenizer = new CharTokenizer(base.vocabulary);
  const config = modelConfigs(recipe, tokenizer.vocabSize).policy;
  const policy = Gpt.init(gpu, config, TEST_POLICY_SEED, 'policy');
  const reference = Gpt.fromWeights(gpu, config, await policy.readParameters(), 'reference');
  const ctx: RlContext = {
    recipe,
    task,
    codec: tokenizer,
    algorithm,
    models: {
      byName: new Map([
        ['policy', policy],
        ['reference', reference],
      ]) as RlContext['models']['byName'],
      optimizers: new Map([['policy', new AdamW(policy)]]),
    },
    sampler: new GpuSampler(new Generator(policy), tokenizer, { temperature: recipe.rl.temperature, topK: 0 }, 1),
    scorer: new Scorer(gpu),
    updates: new UpdateSteps(gpu),
    limits: rolloutLimits(recipe, 'train'),
  };
  return { ctx, policy, reference, config };
}
