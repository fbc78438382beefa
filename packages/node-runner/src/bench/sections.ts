// The bench's sections, in the order they run and print. A section measures one subject and returns
// its rows; it checks `ctx.wants(name)` before measuring a row so `--only` skips work, not just
// output. To add a subject, write `bench/<subject>.ts` exporting a `BenchSection` and list it here.

import type { Gpu } from '@horizon/kernels';
import { type Ceilings, ceilingSection } from './ceilings.ts';
import { matmulSection } from './matmul.ts';
import type { TorchOutcome, TorchRequest } from './peers/pytorch.ts';
import type { TfjsPeer } from './peers/tfjs.ts';
import { ppoIterationSection } from './ppo-iteration.ts';
import { benchRlKernels } from './rl-kernels.ts';
import type { BenchRow } from './row.ts';
import type { BenchModelShape } from './shapes.ts';
import { trainStepSection } from './train-steps.ts';

export interface BenchContext {
  gpu: Gpu;
  /** CI-sized shapes and fewer repetitions. */
  quick: boolean;
  /** The model every model-shaped row uses. */
  shape: BenchModelShape;
  /** Whether a row of this name was asked for (`--only`). */
  wants(name: string): boolean;
  /** The device ceilings, once the ceiling section has run (it runs first). */
  ceilings?: Ceilings;
  /** The tfjs peer on our device, loaded on first use; a string says why it cannot run. */
  tfjs(): Promise<TfjsPeer | string>;
  /** Runs the PyTorch peer on this request (call with no GPU work in flight). */
  torch(request: TorchRequest): Promise<TorchOutcome>;
  /** One line of progress (stderr), so a long run shows where it is. */
  progress(line: string): void;
}

export interface BenchSection {
  name: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}

/** GAE and the loss kernels (issue 4), beside the float64 TypeScript reference on the CPU. */
const rlKernelSection: BenchSection = {
  name: 'rl kernels',
  run: (ctx) => benchRlKernels(ctx.gpu, { quick: ctx.quick, wants: ctx.wants, progress: ctx.progress }),
};

export const SECTIONS: readonly BenchSection[] = [ceilingSection, matmulSection, rlKernelSection, trainStepSection, ppoIterationSection];
