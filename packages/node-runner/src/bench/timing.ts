// How every bench figure is timed: warm-up runs (pipeline compilation, first-use allocation, JIT),
// then the median of N timed runs. GPU work is drained before the clock starts and awaited before
// it stops (`gpu.sync()` resolves on onSubmittedWorkDone), so a figure is submit-to-done wall time:
// what a training step pays, including the ~0.1–0.3 ms submit and completion overhead measured
// on SwiftShader (docs/design.md §5). Large runs get fewer repetitions through `budgetMs`.

import type { Gpu, Recorder } from '@horizon/kernels';

export interface TimingOptions {
  /** Untimed runs first. */
  warmup: number;
  /** Timed runs at most. */
  reps: number;
  /** Stop adding timed runs once this much time went into them (at least one always runs). */
  budgetMs?: number;
}

export interface Timing {
  medianMs: number;
  minMs: number;
  /** Timed runs that went into the median. */
  runs: number;
}

export async function timeRuns(run: () => Promise<void>, options: TimingOptions): Promise<Timing> {
  checkTiming(options);
  for (let i = 0; i < options.warmup; i++) await run();
  const samples: number[] = [];
  let spent = 0;
  while (samples.length < options.reps && (samples.length === 0 || options.budgetMs === undefined || spent < options.budgetMs)) {
    const t0 = performance.now();
    await run();
    const ms = performance.now() - t0;
    samples.push(ms);
    spent += ms;
  }
  return { medianMs: median(samples), minMs: Math.min(...samples), runs: samples.length };
}

/** Times what `record` records, submitted as one command buffer and awaited. */
export async function timeGpu(gpu: Gpu, record: (rec: Recorder) => void, options: TimingOptions): Promise<Timing> {
  await gpu.sync();
  return timeRuns(async () => {
    gpu.run(record, 'bench');
    await gpu.sync();
  }, options);
}

/**
 * Grows a run's size (a repeat count or loop length) by doubling from 1 until one run takes at least
 * `targetMs` or the size reaches `maxScale`, so a ceiling probe is long enough to time on a fast
 * GPU without taking seconds on SwiftShader. `run` returns its own wall time in ms.
 */
export async function calibrate(run: (scale: number) => Promise<number>, targetMs: number, maxScale: number): Promise<number> {
  await run(1); // warm-up: compilation would otherwise make the first size look long enough
  let scale = 1;
  while (scale < maxScale && (await run(scale)) < targetMs) scale *= 2;
  return Math.min(scale, maxScale);
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median: no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function checkTiming(o: TimingOptions): void {
  if (!Number.isInteger(o.warmup) || o.warmup < 0) throw new RangeError(`timing: warmup must be a non-negative integer, got ${o.warmup}`);
  if (!Number.isInteger(o.reps) || o.reps < 1) throw new RangeError(`timing: reps must be a positive integer, got ${o.reps}`);
  if (o.budgetMs !== undefined && !(o.budgetMs >= 0)) throw new RangeError(`timing: budgetMs must be non-negative, got ${o.budgetMs}`);
}
