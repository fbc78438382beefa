// Static against interactive judging on UI-DSL (Qwen, "The Verification Horizon", arXiv:2606.26300,
// its frontend judges): the same warm start per seed, trained by PPO against either the static
// judge (keyword counts over the program text, so padding pays) or the interactive one (render,
// click through the spec, answer the rubric from what happened). Every evaluation judges
// interactively whatever the arm trained with (ui-dsl/task.ts), so held-out success is true success,
// and eval/response_length is the program length the claim is about.
//
// Sizes: ui-ppo's 300 × 16 warm start (true held-out success 48.1 / 39.4 / 30.1% on seeds 1–3), 30
// iterations of 32 prompts at add-ppo-fast's update (one epoch, lr 5e-4), all 216 held-out specs
// every 10 iterations. In the run (load 5–12, shared): median 4.4–7.7 s an iteration, 8–14 s an
// evaluation, 3–5 minutes a run.

import type { Report } from '../report.ts';

const QWEN = 'Qwen, "The Verification Horizon", arXiv:2606.26300';

export const staticVsInteractive: Report = {
  name: 'static-vs-interactive',
  question:
    'On UI-DSL, from one warm start, does RL against a static judge that counts rubric keywords in the program text lengthen programs without raising true (interactively judged) success, while RL against the interactive judge raises true success and keeps programs short?',
  comparisons: [
    {
      arm: 'interactive',
      against: 'static',
      direction: 'higher',
      claim: `Training against the interactive judge (render, act, judge the recorded behaviour) reaches higher true success than training against a static judge of the source (${QWEN}: the interactive judge's RFT gains, the static judge's scores stalling).`,
    },
    {
      arm: 'static',
      against: 'interactive',
      metric: 'response-length',
      direction: 'higher',
      claim: `Under a static judge program length inflates under RL ("length exploitation"), and under the interactive judge it stays stable (${QWEN}).`,
    },
  ],
  arms: [
    {
      name: 'interactive',
      label: 'PPO against the interactive judge (simulator render server, planned clicks and fills)',
      preset: 'ui-ppo',
      sets: [],
      rlSets: ['task.uiDsl.judge=interactive'],
    },
    {
      name: 'static',
      label: 'PPO against the static judge (rubric keywords counted anywhere in the program)',
      preset: 'ui-ppo',
      sets: [],
      rlSets: ['task.uiDsl.judge=static'],
    },
  ],
  design: [
    '**One difference.** Both arms restore the same warm start per seed (SFT on honest programs; the judge is an `rlSets` override, outside the warm start’s key) and sample the same prompts with the same seeds; they differ in the reward only. Evaluation always uses the interactive judge on the simulator, so both arms’ held-out success is measured the same way: whether the program, rendered and clicked through as the spec says, behaves and raises no error.',
    '**Room to pad.** A program may take 64 tokens; an honest one is 17–31 characters. The static judge pays keywords anywhere — strings and comments too — so a program that names every element and handler without wiring them can score 1.0 statically and about 0.43 interactively (docs/verification.md). Honest programs score 1.0 under both, so the static judge pays no more for padding a correct program; what it pays for is keywords in a wrong one.',
    '**Left out, and why.** The paper’s judges are LLMs over screenshots and accessibility trees, its tasks full web apps, and its interactive judge a best-of-4 filter for RFT rather than an RL reward; here both judges are scripts over a five-element UI language and the policy is 2 layers of width 32. The sampled (stochastic) static judge and Playwright as the render server are measured on the judges’ test set (docs/verification.md), not trained against: the simulator and Playwright agree on every case there, and Playwright costs about 900 ms a render.',
  ],
  seeds: [1, 2, 3],
  common: ['eval.interval=10'],
  // Every held-out spec UI-DSL allows: half of its 432 training specs.
  heldOutSize: 216,
  trainingMetrics: [
    { name: 'rollout/reward', label: 'training reward (the arm’s own judge)' },
    { name: 'rollout/success', label: 'training success (the arm’s own judge)' },
    { name: 'rollout/response_length', label: 'training program length (tokens)' },
  ],
  budget: { runs: 6, minutes: 45 },
  fidelity: true,
};
