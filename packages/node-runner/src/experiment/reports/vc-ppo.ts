// VC-PPO against plain PPO: value pretraining (the critic trains alone until its explained variance
// reaches 0.5, at most 20 iterations) and decoupled λ (length-adaptive for the actor, 1 for the
// critic), the add-vc-ppo preset, against add-ppo's five warm-up iterations and fixed λ = 0.95.
// Leaves out VC-PPO's value pretraining on a separate corpus: here it uses the run's own rollouts.

import type { Report } from '../report.ts';

export const vcPpo: Report = {
  name: 'vc-ppo',
  question: 'Does pretraining the critic to a target explained variance, with decoupled λ, make PPO on addition learn more and collapse less?',
  comparisons: [
    {
      arm: 'vc-ppo',
      against: 'ppo',
      direction: 'higher',
      claim:
        'Value pretraining and decoupled λ remove the value bias that makes PPO collapse early on long outputs, and raise final success (Yuan et al. 2025, VC-PPO, arXiv:2503.01491).',
    },
  ],
  arms: [
    { name: 'ppo', label: 'PPO: 5 critic-only iterations, λ = 0.95', preset: 'add-ppo', sets: [] },
    {
      name: 'vc-ppo',
      label: 'VC-PPO: critic-only until explained variance 0.5 (≤ 20 iterations), λ_actor length-adaptive, λ_critic = 1',
      preset: 'add-vc-ppo',
      sets: [],
    },
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
