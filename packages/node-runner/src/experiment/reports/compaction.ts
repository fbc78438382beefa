// Compaction on LongStream (a 64-token context, streams of 7–12 digits: every held-out trace is 3–6
// windows, so held-out success is success on traces at least 3 windows long). Critic PPO training
// every segment with its summaries trained, against the same with the summary tokens out of the
// loss ("untrained"), and against GRPO with the reward broadcast to every segment, 16 rollouts per
// iteration each. The deterministic summariser (the environment writes the running sum: nothing to
// learn at the cut) would be an upper bound, not a baseline, and no claim is tested against it, so it
// is not run here: its arm cost more than any other in the pilot (1434 s of the 202.5 minutes
// estimated under load, docs/experiments.md 2026-12-02) and answers no question of the report; run
// it with `horizon train --recipe stream-ppo --set rl.compaction.summariser=deterministic`. No
// compaction is not run: the answer needs every chunk and one window holds about four, so it scores
// 0% by construction. All arms share each seed's warm start (stream-ppo's 400 SFT steps on honest
// demonstrations of every segment).

import type { Report } from '../report.ts';

export const compaction: Report = {
  name: 'compaction',
  question:
    'When a long stream must be summarised to fit the context, does training the summaries with the rest of the rollout (critic PPO over every segment) beat leaving them untrained, and beat GRPO with the reward broadcast to segments?',
  comparisons: [
    {
      arm: 'trained',
      against: 'untrained',
      direction: 'higher',
      claim:
        'Summaries trained jointly with the policy keep what the task needs, where untrained ones degenerate to naive brevity (CompactionRL, arXiv:2607.05378).',
    },
    {
      arm: 'trained',
      against: 'grpo',
      direction: 'higher',
      claim:
        'Critic PPO with token-level GAE over compacted segments learns long-horizon tasks better than a group baseline broadcast to every segment (Z.ai’s GLM-5.2 blog, and SAO, arXiv:2607.07508, its RL pipeline).',
    },
  ],
  arms: [
    { name: 'trained', label: 'critic PPO, every segment trained, the policy’s summaries trained', preset: 'stream-ppo', sets: [] },
    {
      name: 'untrained',
      label: 'critic PPO, every segment trained, the summary tokens out of the loss',
      preset: 'stream-ppo',
      sets: ['rl.compaction.trainSummaries=false'],
    },
    { name: 'grpo', label: 'GRPO, 4 prompts × 4 rollouts, the reward broadcast to every segment', preset: 'stream-grpo', sets: [] },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=12', 'eval.interval=12', 'eval.oodSize=32'],
  heldOutSize: 500,
  trainingMetrics: [
    { name: 'rollout/segments', label: 'segments per rollout' },
    { name: 'rollout/success', label: 'training success' },
  ],
  budget: { runs: 9, minutes: 45 },
  fidelity: true,
};
