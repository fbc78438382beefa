// The episode runner's limits from a recipe, in one place, so that training, evaluation, the
// experiment runner's off-policy arm and tests all cut and compact episodes alike. Compaction is
// present only when the recipe turns it on (recipe/compaction.ts). Evaluation is not held to
// rl.compaction.maxSegments: the cap bounds what an iteration trains, and a held-out or OOD trace
// longer than the training ones should be measured whole.

import type { RolloutLimits } from '../envs/episode.ts';
import { compactionOf } from '../recipe/compaction.ts';
import type { Recipe } from '../recipe/schema.ts';

export function rolloutLimits(recipe: Recipe, use: 'train' | 'eval'): RolloutLimits {
  const options = compactionOf(recipe);
  const compaction = options && use === 'eval' ? { ...options, maxSegments: undefined } : options;
  return {
    contextLength: recipe.model.contextLength,
    maxNewTokens: recipe.rl.maxNewTokens,
    maxTurns: recipe.rl.maxTurns,
    ...(compaction ? { compaction } : {}),
  };
}
