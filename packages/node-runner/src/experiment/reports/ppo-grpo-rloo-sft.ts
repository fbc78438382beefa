// PPO vs GRPO vs RLOO vs SFT-only on addition, paired over 3 seeds: the comparison the default
// recipes were tuned on (docs/experiments.md, one seed each), repeated so a verdict can be drawn.
// Sized for about 20 minutes on a quiet 2-core machine: 60 RL iterations (the single-seed runs
// used 200), so the figures describe early training, not where each method ends up.

import type { Report } from '../report.ts';

export const ppoGrpoRlooSft: Report = {
  name: 'ppo-grpo-rloo-sft',
  question:
    'From one supervised warm start, which improves greedy held-out addition more in 60 iterations of 128 rollouts: PPO with a critic, GRPO, RLOO — or spending about the same time on more supervised steps?',
  comparisons: [
    {
      arm: 'rloo',
      against: 'ppo',
      direction: 'higher',
      claim: 'RLOO optimises reward better than PPO (Ahmadian et al. 2024, "Back to Basics", arXiv:2402.14740).',
    },
    {
      arm: 'grpo',
      against: 'ppo',
      direction: 'higher',
      claim: 'GRPO, dropping the critic for a group baseline, does at least as well as PPO (Shao et al. 2024, DeepSeekMath, arXiv:2402.03300).',
    },
    {
      arm: 'ppo',
      against: 'sft-only',
      direction: 'higher',
      claim:
        'RL after a supervised warm start beats more supervised training (the premise of SFT-then-PPO, Ouyang et al. 2022, InstructGPT, arXiv:2203.02155).',
    },
  ],
  arms: [
    { name: 'ppo', label: 'PPO, critic + token-level GAE (the add-ppo default)', preset: 'add-ppo', sets: [] },
    { name: 'grpo', label: 'GRPO, 32 prompts × 4, k3 KL in the loss', preset: 'add-grpo', sets: [] },
    { name: 'rloo', label: 'RLOO, 32 prompts × 4, k1 KL in the reward', preset: 'add-rloo', sets: [] },
    {
      name: 'sft-only',
      label: '1800 more SFT steps instead of RL (about the PPO arm’s time on a quiet machine)',
      preset: 'add-ppo',
      sets: [],
      kind: 'sft-only',
      sftOnlySteps: 1800,
    },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=60', 'eval.interval=10', 'eval.oodSize=50'],
  heldOutSize: 500,
  budget: { runs: 12, minutes: 25 },
  fidelity: true,
};
