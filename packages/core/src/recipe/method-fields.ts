// Which methods read which recipe fields: a field path or a section prefix ("sao", "rl.criticUpdates")
// mapped to the algorithms that read it. A field no row names is common to every method (for example
// `rl.rolloutLag`, `rl.policyLoss` and the DIS band). The recipe check that refuses a field of one
// method set under another reads this table.

import type { AlgorithmName } from './schema.ts';

export const METHOD_FIELDS: Readonly<Record<string, readonly AlgorithmName[]>> = {
  // The critic, its GAE targets and its warm-up (VC-PPO's value pretraining): the methods with a critic.
  'rl.lambda': ['ppo', 'sao'],
  'rl.lambdaCritic': ['ppo', 'sao'],
  'rl.lambdaAlpha': ['ppo', 'sao'],
  'rl.valueClip': ['ppo', 'sao'],
  'rl.criticLr': ['ppo', 'sao'],
  'rl.criticWarmupSteps': ['ppo', 'sao'],
  'rl.criticWarmupTarget': ['ppo', 'sao'],
  'rl.criticUpdates': ['ppo', 'sao'],
  sao: ['sao'],
};
