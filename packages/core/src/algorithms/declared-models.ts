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

/** Every model of the recipe's method, in declaration order (the policy first). */
export function declaredModels(recipe: Recipe, vocabSize: number): DeclaredModel[] {
  const configs = modelConfigs(recipe, vocabSize);
  const configOf: Record<ModelRole, GptConfig> = { policy: configs.policy, reference: configs.policy, critic: configs.critic };
  return ALGORITHM_BY_NAME[recipe.rl.algorithm].models.map((model) => ({ ...model, config: configOf[model.role] }));
}
