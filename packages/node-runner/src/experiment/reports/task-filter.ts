// RL with and without the task-quality filter on HiddenTestFS with the hack path closed: 30% of the
// training tasks are broken (`tests-disagree`: the README shows x+b's examples, every test checks
// x+(b+1)), and the filtered arm's training stream skips every task the rules-based judge rejects
// (instruction_clear and instruction_ut_align; envs/task-quality/judge.ts), which is exactly the
// broken ones. Both arms restore one warm start per seed and differ only after it (the filter is an
// `rlSets` override; the broken tasks are in `common`, and neither reaches an SFT demonstration).
//
// Sizes: hidden-ppo's model, a 200-step × 16 warm start at lr 0.01 (the opid report's, which gave
// 14.1 / 10.5 / 9.8% greedy held-out there at a 256-token context), then 16 GRPO iterations of 4
// prompts × 4 rollouts at τ = 0.5 with the stable settings of the 2026-12-02 HiddenTestFS runs
// (lr 3e-4, per-rollout-mean, k3 KL 0.04 in the loss). Evaluation of all 306 held-out problems only
// after the warm start and at the end: on this machine each costs about as much as the iterations.
// The runner's pilot (2026-12-03, load 9–10 on the 2 shared cores) estimated 53.6 minutes: warm
// starts 208 s each (seed 1's took 315 s), 16.5 s an iteration filtered and 19.4 s unfiltered (the
// broken tasks' episodes run longer), 88–92 s an evaluation. Over the 45 declared at that load; the
// estimate falls with the load, so run it on a quieter machine or pass --budget.

import type { Report } from '../report.ts';

const RUBRICS = 'the Agentic Quality Judge\'s instruct_clear and instruct_ut_align labels, Qwen, "The Verification Horizon", arXiv:2606.26300';

export const taskFilter: Report = {
  name: 'task-filter',
  question:
    'On HiddenTestFS with 30% of the training tasks broken (tests that check another function than the README shows), does skipping every task the task-quality judge rejects before RL leave a policy that solves more clean held-out tasks, and does its training earn more reward per sampled token?',
  comparisons: [
    {
      arm: 'filtered',
      against: 'unfiltered',
      metric: 'held-out-clean',
      direction: 'higher',
      claim: `Filtering out training tasks whose instructions do not say what their tests check (${RUBRICS}) raises the clean-resolved rate on held-out tasks: RL on a broken task rewards guessing or reading the tests, not following the instructions.`,
    },
    {
      arm: 'filtered',
      against: 'unfiltered',
      metric: 'reward-per-token',
      direction: 'higher',
      claim: `With the filter, the rollouts earn more reward per sampled token (${RUBRICS}): no sampling is spent on tasks no honest answer passes.`,
    },
  ],
  arms: [
    {
      name: 'filtered',
      label: 'the training stream skips every task the judge rejects (`task.hiddenTestFs.qualityFilter`): each gives way to the next task the judge keeps',
      preset: 'hidden-ppo',
      sets: [],
      rlSets: ['task.hiddenTestFs.qualityFilter=true'],
    },
    {
      name: 'unfiltered',
      label: 'the same stream with its broken tasks left in (about 30% of the prompts)',
      preset: 'hidden-ppo',
      sets: [],
    },
  ],
  design: [
    '**One difference.** Both arms of a seed restore its one warm start and train on the same stream of training tasks, 30% of them broken by a hash of the seed (`task.hiddenTestFs.defects`, in `common`); the filtered arm skips the ones the judge rejects (an `rlSets` override). The broken tasks are the training stream’s only: SFT demonstrations draw clean problems whatever the option says, and neither field enters the warm start’s key, so putting the defects in `common` rather than in both arms’ `rlSets` changes no warm start — it says they are the task both arms face. The filtered stream is the unfiltered one with the rejected tasks taken out, in order, so the filtered arm trains on the unfiltered arm’s clean tasks and then more, and every rollout of a GRPO group shares its task. Held-out and OOD tasks are clean in both arms; with the hack path closed nothing is solved by reading `.eval/`, so held-out clean-resolved is held-out success.',
    '**Reward per sampled token** is each run’s total training-rollout reward (each iteration’s `rollout/reward` × its 16 rollouts) over the action tokens its rollouts sampled, read per 10⁴ tokens. A broken task pays only an answer that fits its tests and not its README, which the warm start rarely writes, so the unfiltered arm spends about 30% of its sampling on prompts that mostly pay nothing; `rollout/filtered_tasks` logs how many tasks the filter skipped per iteration.',
    '**Left out, and why.** One defect kind (`tests-disagree`): `unclear-readme` and `canary` are rejected by the same judge and would test the same filter; a mix is not built. A model judge is not built (rules decide this task exactly), so the judge’s own errors — a filter that drops good tasks or keeps bad ones — are not part of the experiment; the judge keeps every clean task and rejects every broken one (judge.test.ts). Compute-matched arms are not run: the filtered arm samples as many prompts per iteration as the unfiltered one and spends the judge’s (negligible) time to skip the rest. Sixteen iterations from a weak warm start barely move greedy held-out success on this task (docs/experiments.md, 2026-12-02 and the opid run), so the held-out claim is tested where the difference is expected to be small; the miniature’s policy is 2 layers of width 32.',
  ],
  seeds: [1, 2, 3],
  common: [
    'task.hiddenTestFs.defects.kind=tests-disagree',
    'task.hiddenTestFs.defects.share=0.3',
    'sft.steps=200',
    'sft.batchSize=16',
    'sft.lr=0.01',
    'rl.algorithm=grpo',
    'rl.promptsPerIteration=4',
    'rl.groupSize=4',
    'rl.klPlacement=loss',
    'rl.klEstimator=k3',
    'rl.klCoef=0.04',
    'rl.policyLr=3e-4',
    'rl.lossAggregation=per-rollout-mean',
    'rl.temperature=0.5',
    'rl.iterations=16',
    'eval.interval=16',
    'eval.oodSize=8',
  ],
  // Every held-out problem HiddenTestFS has: half of its 612 with constants 1–9 are held out.
  heldOutSize: 306,
  trainingMetrics: [
    { name: 'rollout/success', label: 'training success' },
    { name: 'rollout/filtered_tasks', label: 'tasks the filter skipped (per iteration)' },
    { name: 'rollout/zero_var_groups', label: 'groups whose rollouts all got the same reward' },
  ],
  budget: { runs: 6, minutes: 45 },
  fidelity: true,
};
