// What a bench section is and what it is given. Its own file because every section imports these
// types and sections.ts imports every section: declared in sections.ts they made an import circle.

import type { Gpu } from '@horizon/kernels';
import type { TorchOutcome, TorchRequest } from './peers/pytorch.ts';
import type { TfjsPeer } from './peers/tfjs.ts';
import type { BenchRow } from './row.ts';
import type { BenchModelShape } from './shapes.ts';

/** The device's measured limits (ceilings.ts measures them). */
export interface Ceilings {
  /** Best of the buffer copy and the copy kernel, GB/s (read + write). */
  bandwidthGBs: number;
  /** The FMA kernel, GFLOP/s. */
  computeGflops: number;
}

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
