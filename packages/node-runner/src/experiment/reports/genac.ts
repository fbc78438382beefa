// GenAC's generative critic against PPO's discriminative value head, and PPO + GenAC against PPO
// and GRPO on addition (Shan et al. 2026, "Bringing Value Models Back: Generative Critics for Value
// Modeling in LLM Reinforcement Learning", arXiv:2604.10701; docs/algorithms/genac.md).
//
// Fair supervision: both critics learn from the same rollouts and the same Monte-Carlo targets.
// The discriminative arm is add-ppo at GenAC's rollout shape (32 prompts × 8, 4 minibatches, the
// same prompts and rollout seeds), with γ = 1 and λ_critic = 1 (add-ppo's defaults), so its value
// targets are each rollout's Monte-Carlo return, whose mean over a prompt's group is exactly the
// group mean GenAC's critic is trained towards (genac/critic-targets.ts): the squared-error fit of
// the value at the prompt to a group's 8 returns has the group mean as its minimiser. Its actor is
// frozen for as many iterations (rl.criticWarmupSteps = 10) as GenAC's critic-only phases (8 SFT +
// 2 REINFORCE), so both actors take 20 policy iterations of the 30. The critics are compared by
// the critic probe (critic-probe.ts): value error and ranking accuracy against the next batch's
// Monte-Carlo values.
//
// Sized by a pilot on a loaded 2-core machine (2026-12-02, load average 15–20): 40 iterations of
// seven arms (these, RLOO, VC-PPO, and critic width 64 for each critic) estimated 282 minutes; the
// width-64 critics cost 2.9× (GenAC) and 3.2× (PPO) their width-32 arms per iteration. So this
// declaration keeps three arms at 30 iterations and leaves out RLOO and VC-PPO (each compared with
// PPO in its own report), the critic-size sweep, and the critic's error on the OOD split (the probe
// measures the training distribution only: the runner has no rollout pass on OOD prompts).

import type { Report } from '../report.ts';

const PAPER = 'Shan et al. 2026, GenAC, arXiv:2604.10701';

export const genacReport: Report = {
  name: 'genac',
  question:
    'From one warm start, does a generative critic (a reasoning, then a value digit) fit Monte-Carlo values better than a value head trained on the same returns, and does PPO with it learn addition better than PPO with the value head, or than GRPO?',
  comparisons: [
    {
      arm: 'genac',
      against: 'ppo-mc',
      metric: 'critic-value-error',
      direction: 'lower',
      claim: `A generative critic that writes a reasoning before its value approximates Monte-Carlo values better than a one-shot discriminative critic (${PAPER}).`,
    },
    {
      arm: 'genac',
      against: 'ppo-mc',
      metric: 'critic-ranking',
      direction: 'higher',
      claim: `A generative critic orders prompts by their success more reliably than a discriminative one (ranking accuracy, ${PAPER}).`,
    },
    {
      arm: 'genac',
      against: 'ppo-mc',
      direction: 'higher',
      claim: `PPO with the generative critic reaches higher final success than PPO with a discriminative critic (${PAPER}).`,
    },
    {
      arm: 'genac',
      against: 'grpo',
      direction: 'higher',
      claim: `PPO with the generative critic beats the value-free GRPO (${PAPER}).`,
    },
  ],
  arms: [
    {
      name: 'genac',
      label: 'PPO + GenAC: critic SFT 8 iterations × 16 steps, 2 REINFORCE iterations, then PPO (actor frozen for the first 10)',
      preset: 'add-genac',
      sets: ['genac.sftIterations=8', 'genac.sftSteps=16', 'genac.reinforceIterations=2'],
    },
    {
      name: 'ppo-mc',
      label: 'PPO + value head on the same rollouts (32 × 8) and Monte-Carlo returns (λ_critic = 1), critic-only for the first 10',
      preset: 'add-ppo',
      sets: ['rl.promptsPerIteration=32', 'rl.groupSize=8', 'rl.minibatches=4', 'rl.criticWarmupSteps=10'],
    },
    { name: 'grpo', label: 'GRPO, 32 prompts × 4, k3 KL in the loss (the add-grpo default)', preset: 'add-grpo', sets: [] },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=30', 'eval.interval=10', 'eval.oodSize=50'],
  heldOutSize: 500,
  budget: { runs: 9, minutes: 30 },
  probes: ['critic'],
  fidelity: true,
};
