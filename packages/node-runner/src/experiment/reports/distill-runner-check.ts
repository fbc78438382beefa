// The runner's check of arms that learn from other arms, not an experiment: micro experts on one
// skill each (after the shared warm start), a student distilled from both, and the off-policy
// baseline on their completions, × 3 seeds, on the mixed task (tests/cli/experiment-teachers.test.ts).
// Not listed in the fidelity table.

import type { Report } from '../report.ts';

export const distillRunnerCheck: Report = {
  name: 'distill-runner-check',
  question: 'Does the experiment runner train experts first, hand their final policies to the arms that learn from them, and report by skill?',
  comparisons: [
    {
      arm: 'student',
      against: 'expert-sft',
      direction: 'higher',
      claim: 'A micro distilled student against micro SFT on its teachers’ samples (no claim: a mechanics check).',
    },
    { arm: 'student', against: 'add-expert', skill: 'addition', direction: 'higher', claim: 'The same on addition problems only (a mechanics check).' },
  ],
  arms: [
    { name: 'add-expert', label: 'micro addition expert', preset: 'add-grpo', sets: ['task.env=mix'], rlSets: ['task.mix.subtractionShare=0'] },
    { name: 'sub-expert', label: 'micro subtraction expert', preset: 'add-grpo', sets: ['task.env=mix'], rlSets: ['task.mix.subtractionShare=1'] },
    { name: 'student', label: 'micro distilled student', preset: 'mix-distill', sets: [], teachers: ['add-expert', 'sub-expert'] },
    {
      name: 'expert-sft',
      label: 'micro SFT on the experts’ completions',
      preset: 'mix-distill',
      sets: [],
      teachers: ['add-expert', 'sub-expert'],
      kind: 'expert-sft',
    },
  ],
  seeds: [1, 2, 3],
  common: [
    'model.contextLength=16',
    'sft.steps=20',
    'rl.iterations=2',
    'rl.promptsPerIteration=8',
    'rl.epochs=1',
    'rl.minibatches=1',
    'eval.interval=0',
    'eval.oodSize=10',
  ],
  heldOutSize: 500,
  budget: { runs: 12, minutes: 5 },
  fidelity: false,
};
