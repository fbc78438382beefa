// The runner's own check, not an experiment: two micro arms × 3 seeds that exercise every part of
// `horizon experiment` (warm-start cache, pairing, the group probe, results, the page, the table)
// in about a minute on two CPU cores (tests/cli/experiment.test.ts). Not listed in the fidelity table.

import type { Report } from '../report.ts';

export const runnerCheck: Report = {
  name: 'runner-check',
  question: 'Does the experiment runner run, skip, restart and report a paired 2-arm × 3-seed comparison end to end?',
  comparisons: [{ arm: 'rloo', against: 'grpo', direction: 'higher', claim: 'A micro RLOO arm against a micro GRPO arm (no claim: a mechanics check).' }],
  arms: [
    { name: 'grpo', label: 'micro GRPO', preset: 'add-grpo', sets: [] },
    { name: 'rloo', label: 'micro RLOO', preset: 'add-rloo', sets: [] },
  ],
  seeds: [1, 2, 3],
  common: [
    'model.contextLength=16',
    'sft.steps=20',
    'rl.iterations=2',
    'rl.promptsPerIteration=8',
    'rl.groupSize=4',
    'rl.epochs=1',
    'eval.interval=0',
    'eval.oodSize=10',
  ],
  heldOutSize: 500,
  budget: { runs: 6, minutes: 3 },
  probes: ['groups'],
  fidelity: false,
};
