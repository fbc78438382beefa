// The bench's sections, in the order they run and print. A section measures one subject and returns
// its rows; it checks `ctx.wants(name)` before measuring a row so `--only` skips work, not just
// output. To add a subject, write `bench/<subject>.ts` exporting a `BenchSection` and list it here.

import { attentionLengthSection } from './attention-lengths.ts';
import { ceilingSection } from './ceilings.ts';
import { hiddenTestFsEpisodesSection } from './hidden-test-fs-episodes.ts';
import { matmulSection } from './matmul.ts';
import { memorySection } from './memory.ts';
import { multiTurnRolloutSection } from './multi-turn-rollout.ts';
import { ppoIterationSection } from './ppo-iteration.ts';
import { benchRlKernels } from './rl-kernels.ts';
import type { BenchSection } from './section.ts';
import { serveLoadSection } from './serve-load.ts';
import { shaderF16Section } from './shader-f16.ts';
import { trainStepSection } from './train-steps.ts';

export type { BenchContext, BenchSection } from './section.ts';

/** GAE and the loss kernels (docs/algorithms/), beside the float64 TypeScript reference on the CPU. */
const rlKernelSection: BenchSection = {
  name: 'rl kernels',
  run: (ctx) => benchRlKernels(ctx.gpu, { quick: ctx.quick, wants: ctx.wants, progress: ctx.progress }),
};

export const SECTIONS: readonly BenchSection[] = [
  ceilingSection,
  matmulSection,
  rlKernelSection,
  trainStepSection,
  attentionLengthSection,
  ppoIterationSection,
  multiTurnRolloutSection,
  hiddenTestFsEpisodesSection,
  serveLoadSection,
  memorySection,
  shaderF16Section,
];
