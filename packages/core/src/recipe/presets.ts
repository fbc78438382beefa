// Named starting points. Each preset is a partial recipe over the schema defaults (which are
// add-ppo), so a preset lists only what it changes. The numbers are placeholders to tune
// (issue 5 records the tuning); change them here and nowhere else.

import type { RecipeInput } from './schema.ts';

export interface Preset {
  /** One line for `horizon train --help` and the UI's preset picker. */
  doc: string;
  recipe: RecipeInput;
}

export const PRESETS = {
  'add-ppo': {
    doc: 'addition, PPO with a critic and token-level GAE (the default)',
    recipe: { name: 'add-ppo' },
  },
  'add-grpo': {
    doc: 'addition, GRPO: group z-score advantages, KL (k3) in the loss, no critic',
    recipe: {
      name: 'add-grpo',
      rl: { algorithm: 'grpo', promptsPerIteration: 16, groupSize: 4, klPlacement: 'loss', klEstimator: 'k3', klCoef: 0.04, criticWarmupSteps: 0 },
    },
  },
  'add-rloo': {
    doc: 'addition, RLOO: leave-one-out baselines, KL (k1) in the reward, no critic',
    recipe: {
      name: 'add-rloo',
      rl: { algorithm: 'rloo', promptsPerIteration: 16, groupSize: 4, klPlacement: 'reward', klEstimator: 'k1', criticWarmupSteps: 0 },
    },
  },
  tiny: {
    doc: 'CI-sized PPO on 1–2 digit addition: a one-layer, 16-wide policy for 4 iterations',
    recipe: {
      name: 'tiny',
      task: { addition: { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 3 } },
      model: { contextLength: 16, policy: { layers: 1, heads: 2, width: 16 } },
      sft: { steps: 20, batchSize: 8 },
      rl: { iterations: 4, promptsPerIteration: 8, minibatches: 2, maxNewTokens: 5, criticWarmupSteps: 1 },
      eval: { interval: 2, heldOutSize: 20, oodSize: 10 },
      checkpoint: { interval: 2 },
    },
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];
export const DEFAULT_PRESET: PresetName = 'add-ppo';

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
