// SAO vs GRPO vs GRPO + DIS under rollout lag (rollouts sampled by the policy of k updates ago),
// with one epoch per iteration for every arm so that lag counts policy updates. The SAO arm is the
// add-sao preset (DIS, two critic steps, frozen critic attention, length-adaptive λ).

import type { Arm, Report } from '../report.ts';

const LAGS = [0, 2, 4] as const;
const common = (k: number) => [`rl.rolloutLag=${k}`];

const arms: Arm[] = LAGS.flatMap((k) => [
  { name: `grpo-lag${k}`, label: `GRPO, lag ${k}`, preset: 'add-grpo', sets: common(k) },
  { name: `grpo-dis-lag${k}`, label: `GRPO with the DIS policy loss, lag ${k}`, preset: 'add-grpo', sets: [...common(k), 'rl.policyLoss=dis'] },
  { name: `sao-lag${k}`, label: `SAO (DIS, critic), lag ${k}`, preset: 'add-sao', sets: common(k) },
]);

export const saoLag: Report = {
  name: 'sao-lag',
  question: 'As rollouts grow stale (lag 0, 2, 4 policy updates), does SAO keep learning addition where GRPO, with or without DIS, falls behind?',
  comparisons: [
    {
      arm: 'sao-lag4',
      against: 'grpo-lag4',
      direction: 'higher',
      claim: 'SAO’s DIS loss and critic stay stable with stale rollouts where group-baseline methods degrade (Hou et al., SAO, arXiv:2607.07508).',
    },
    {
      arm: 'grpo-dis-lag4',
      against: 'grpo-lag4',
      direction: 'higher',
      claim: 'DIS’s band mask against π_roll tolerates staleness better than the PPO clip against π_old (Hou et al., SAO, arXiv:2607.07508, eqs. 1–3).',
    },
  ],
  arms,
  seeds: [1, 2, 3],
  common: ['rl.epochs=1', 'rl.iterations=60', 'eval.interval=10', 'eval.oodSize=50'],
  heldOutSize: 500,
  trainingMetrics: [
    { name: 'policy/clip_frac', label: 'clipped or masked fraction' },
    { name: 'policy/approx_kl', label: 'KL(π_old ‖ π_θ)' },
  ],
  budget: { runs: 27, minutes: 45 },
  fidelity: true,
};
