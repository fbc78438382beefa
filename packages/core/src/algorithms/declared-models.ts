// The models a recipe's method declares, each with the GPT config the recipe builds for it: what the
// trainer creates when RL starts, what a checkpoint of the run may hold, and what the fit check sizes.

import type { GptConfig } from '../model/config.ts';
import { modelConfigs } from '../recipe/checks.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { ModelDeclaration, ModelRole } from './algorithm.ts';
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
  const configOf: Record<Exclude<ModelRole, 'teacher'>, GptConfig> = { policy: configs.policy, reference: configs.policy, critic: configs.critic };
  const built = ALGORITHM_BY_NAME[recipe.rl.algorithm].models.filter((model) => model.role !== 'teacher');
  return built.map((model) => ({ ...model, config: configOf[model.role as Exclude<ModelRole, 'teacher'>] }));
}
