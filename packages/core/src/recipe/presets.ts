// Named starting points. Each preset is a partial recipe over the schema defaults (which are
// add-ppo), so a preset lists only what it changes. The numbers are placeholders to tune
// (docs/experiments.md records the tuning); change them here and nowhere else.

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
      rl: { algorithm: 'grpo', promptsPerIteration: 32, groupSize: 4, klPlacement: 'loss', klEstimator: 'k3', klCoef: 0.04, criticWarmupSteps: 0 },
    },
  },
  'add-dr-grpo': {
    doc: 'addition, Dr.GRPO: GRPO without the std division, responses summed over a constant length (seq-mean-token-sum-norm)',
    recipe: {
      name: 'add-dr-grpo',
      rl: {
        algorithm: 'dr-grpo',
        promptsPerIteration: 32,
        groupSize: 4,
        lossAggregation: 'seq-mean-token-sum-norm',
        klPlacement: 'loss',
        klEstimator: 'k3',
        klCoef: 0.04,
        criticWarmupSteps: 0,
      },
    },
  },
  'add-rloo': {
    doc: 'addition, RLOO: leave-one-out baselines, KL (k1) in the reward, no critic',
    recipe: {
      name: 'add-rloo',
      rl: { algorithm: 'rloo', promptsPerIteration: 32, groupSize: 4, klPlacement: 'reward', klEstimator: 'k1', criticWarmupSteps: 0 },
    },
  },
  tiny: {
    doc: 'CI-sized PPO: the default task and model, a shorter warm start and 15 iterations (under a minute on two CPU cores)',
    recipe: {
      name: 'tiny',
      model: { contextLength: 16 },
      sft: { steps: 300 },
      rl: { iterations: 15, criticWarmupSteps: 0 },
      eval: { interval: 5, heldOutSize: 200, oodSize: 20 },
      checkpoint: { interval: 5 },
    },
  },
  'mix-add-expert': {
    doc: 'an addition expert that can teach a mixed student: PPO on the mix task with no subtraction (the mix’s vocabulary)',
    recipe: { name: 'mix-add-expert', task: { env: 'mix', mix: { subtractionShare: 0 } } },
  },
  'mix-sub-expert': {
    doc: 'a subtraction expert that can teach a mixed student: PPO on the mix task with subtraction only',
    recipe: { name: 'mix-sub-expert', task: { env: 'mix', mix: { subtractionShare: 1 } } },
  },
  'add-distill': {
    doc: 'addition, on-policy distillation from one teacher run (--set distill.teachers=runs/a): the teacher scores every sampled token',
    recipe: {
      name: 'add-distill',
      rl: { algorithm: 'distill', promptsPerIteration: 64, klCoef: 0, criticWarmupSteps: 0 },
    },
  },
  'mix-distill': {
    doc: 'addition and subtraction, one student merged from two experts (--set distill.teachers=runs/add,runs/sub), each prompt routed by its task',
    recipe: {
      name: 'mix-distill',
      task: { env: 'mix' },
      rl: { algorithm: 'distill', promptsPerIteration: 64, klCoef: 0, criticWarmupSteps: 0 },
      distill: { route: 'addition=1,subtraction=2' },
    },
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];
export const DEFAULT_PRESET: PresetName = 'add-ppo';

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
