// The episode runner's limits from a recipe, in one place, so that training, evaluation, the
// experiment runner's off-policy arm and tests all cut and compact episodes alike. Compaction is
// present only when the recipe turns it on (recipe/compaction.ts). Evaluation is not held to
// rl.compaction.maxSegments: the cap bounds what an iteration trains, and a held-out or OOD trace
// longer than the training ones should be measured whole. Evaluation also gathers in lock step
// (every sampler call waits for every busy episode): a greedy score must be a property of the weights
// alone, and with the default gather a tool that takes real time (a QuickJS module per run_tests)
// changes which rows share a call with the machine's load — one HiddenTestFS checkpoint's held-out
// success read 49.2% and 38.3% on two runs (docs/experiments.md, 2026-12-02). Training keeps the
// default so that one slow tool does not stall its batch.

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
    ...(use === 'eval' ? { gatherMs: Number.POSITIVE_INFINITY } : {}),
    ...(compaction ? { compaction } : {}),
  };
}
