// Runs a callback at most once per interval however often it is asked for (trailing edge), or at
// once on demand. The live run's updates go through it: a trainer step on a fast GPU logs dozens of
// rows a second, and the page redraws on a batch, not on a row (docs/ui.md §0: batched and throttled).

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) };

export class Coalescer {
  private handle: unknown = null;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => void,
    private readonly timers: Timers = realTimers,
  ) {
    if (!(intervalMs >= 0)) throw new RangeError(`Coalescer: intervalMs must be non-negative, got ${intervalMs}`);
  }

  /** Asks for a run; the first ask starts the interval and later asks inside it join that run. */
  schedule(): void {
    if (this.handle !== null) return;
    this.handle = this.timers.set(() => {
      this.handle = null;
      this.run();
    }, this.intervalMs);
  }

  /** Runs now, cancelling a scheduled run (a state change must reach the page without delay). */
  now(): void {
    if (this.handle !== null) this.timers.clear(this.handle);
    this.handle = null;
    this.run();
  }
}
