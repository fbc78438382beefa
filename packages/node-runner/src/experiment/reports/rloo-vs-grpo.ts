// RLOO vs GRPO, and what each does with a group whose rewards are all equal. Both subtract a
// baseline made of the group's other rewards, so such a group's raw advantage is zero (DAPO's
// reason for dynamic sampling, Yu et al. 2025, arXiv:2503.14476); the presets differ in where KL
// goes (GRPO: k3 in the loss; RLOO: k1 in the reward, which makes equal task rewards unequal), so a
// third arm gives RLOO GRPO's KL to compare the baselines alone. The 'groups' probe measures the
// advantages the update actually uses in those groups (group-probe.ts).

import type { Report } from '../report.ts';

export const rlooVsGrpo: Report = {
  name: 'rloo-vs-grpo',
  question:
    'With the same KL placement, does RLOO’s leave-one-out baseline learn addition better than GRPO’s z-scored group mean, and how much of each batch’s advantage sits in groups whose rewards are all equal?',
  comparisons: [
    {
      arm: 'rloo-kl-loss',
      against: 'grpo',
      direction: 'higher',
      claim:
        'Dividing by the group’s reward standard deviation biases GRPO’s updates; a baseline without it, like RLOO’s leave-one-out mean, does at least as well (Liu et al. 2025, Dr. GRPO, arXiv:2503.20783; RLOO: Ahmadian et al. 2024, arXiv:2402.14740).',
    },
    {
      arm: 'rloo',
      against: 'grpo',
      direction: 'higher',
      claim: 'RLOO as the RLOO paper runs it (KL in the reward) does at least as well as GRPO (Ahmadian et al. 2024, arXiv:2402.14740).',
    },
  ],
  arms: [
    { name: 'grpo', label: 'GRPO, 32 prompts × 4, k3 KL (β 0.04) in the loss', preset: 'add-grpo', sets: [] },
    { name: 'rloo', label: 'RLOO, 32 prompts × 4, k1 KL (β 0.01) in the reward', preset: 'add-rloo', sets: [] },
    {
      name: 'rloo-kl-loss',
      label: 'RLOO with GRPO’s KL: k3, β 0.04, in the loss',
      preset: 'add-rloo',
      sets: ['rl.klPlacement=loss', 'rl.klEstimator=k3', 'rl.klCoef=0.04'],
    },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=80', 'eval.interval=10', 'eval.oodSize=50'],
  heldOutSize: 500,
  budget: { runs: 9, minutes: 20 },
  probes: ['groups'],
  fidelity: true,
};
