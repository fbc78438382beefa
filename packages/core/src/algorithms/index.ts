// The methods by recipe name (`rl.algorithm`).

import type { Recipe } from '../recipe/schema.ts';
import type { Algorithm, ModelRole } from './algorithm.ts';
import { distill } from './distill.ts';
import { drGrpo } from './dr-grpo.ts';
import { genac } from './genac/genac.ts';
import { grpo } from './grpo.ts';
import { kto } from './kto.ts';
import { opid } from './opid/opid.ts';
import { ppo } from './ppo.ts';
import { rloo } from './rloo.ts';
import { sao } from './sao.ts';

export const ALGORITHM_BY_NAME: Record<Algorithm['name'], Algorithm> = { ppo, grpo, 'dr-grpo': drGrpo, rloo, kto, sao, distill, genac, opid };

/** Whether the recipe's method has a model of this role (e.g. a critic to size and check). */
export function declaresRole(recipe: Recipe, role: ModelRole): boolean {
  return ALGORITHM_BY_NAME[recipe.rl.algorithm].models.some((model) => model.role === role);
}
