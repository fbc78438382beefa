// The models a recipe's method declares, each with the GPT config the recipe builds for it: what the
// trainer creates when RL starts, what a checkpoint of the run may hold, and what the fit check sizes.
// With a rollout lag k, the k past policies the lag simulator keeps (train/policy-history.ts) are
// declared too, frozen, as `policy-lag-1` … `policy-lag-k`: a checkpoint holds the ones it has.

import type { GptConfig } from '../model/config.ts';
import { modelConfigs } from '../recipe/checks.ts';
import type { Recipe } from '../recipe/schema.ts';
import { lagModelName } from '../train/policy-history.ts';
import type { ModelDeclaration, ModelRole } from './algorithm.ts';
import { generativeCriticConfig } from './genac/critic-vocabulary.ts';
import { ALGORITHM_BY_NAME } from './index.ts';

export interface DeclaredModel extends ModelDeclaration {
  config: GptConfig;
}

/**
 * Every model of the recipe's method that the run itself builds and checkpoints, in declaration
 * order (the policy first). Teachers are not among them: they are other runs' policies, loaded by
 * the front end with their own configs (train/teachers.ts).
 */
export function declaredModels(recipe: Recipe, vocabSize: number): DeclaredModel[] {
  const configs = modelConfigs(recipe, vocabSize);
  const configOf: Record<Exclude<ModelRole, 'teacher' | 'generative-critic'>, GptConfig> = {
    policy: configs.policy,
    reference: configs.policy,
    critic: configs.critic,
  };
  const configFor = (role: Exclude<ModelRole, 'teacher'>) => (role === 'generative-critic' ? generativeCriticConfig(recipe) : configOf[role]);
  const built = ALGORITHM_BY_NAME[recipe.rl.algorithm].models.filter((model) => model.role !== 'teacher');
  const method = built.map((model) => ({ ...model, config: configFor(model.role as Exclude<ModelRole, 'teacher'>) }));
  const kept = Array.from({ length: recipe.rl.rolloutLag }, (_, i) => ({
    name: lagModelName(i + 1),
    role: 'policy' as const,
    trained: false,
    config: configs.policy,
  }));
  return [...method, ...kept];
}
