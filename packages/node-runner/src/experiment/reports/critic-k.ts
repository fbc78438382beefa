// K = 1 vs K = 2 critic updates per policy update, SAO's "faster value updates" (§3.2), on plain
// PPO so that the critic steps are the only difference (`rl.criticUpdates`).

import type { Report } from '../report.ts';

export const criticK: Report = {
  name: 'critic-k',
  question: 'Does a second critic step per policy step (on the same targets) make PPO on addition learn faster?',
  comparisons: [
    {
      arm: 'k2',
      against: 'k1',
      direction: 'higher',
      claim: 'Two critic updates per policy update give a better critic and better final success (Hou et al., SAO, arXiv:2607.07508, §3.2).',
    },
  ],
  arms: [
    { name: 'k1', label: 'PPO, one critic step per minibatch', preset: 'add-ppo', sets: ['rl.criticUpdates=1'] },
    { name: 'k2', label: 'PPO, two critic steps per minibatch', preset: 'add-ppo', sets: ['rl.criticUpdates=2'] },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=60', 'eval.interval=10', 'eval.oodSize=50'],
  heldOutSize: 500,
  trainingMetrics: [
    { name: 'critic/explained_var', label: 'explained variance' },
    { name: 'critic/value_loss', label: 'value loss' },
  ],
  budget: { runs: 6, minutes: 20 },
  fidelity: true,
};
