// Ctrl-C and SIGTERM during `horizon train` (docs/reliability.md §6). The first signal asks the Trainer
// to stop after the step in flight; train.ts then writes a checkpoint (in SFT too), says where it is,
// and exits 128 + the signal number (130 SIGINT, 143 SIGTERM) so a script can tell a stopped run
// from a finished one (exit 0). A second signal (REPEAT_MS or more later) stops at once: `onSecond`
// says what was kept and exits.
//
// Under `pnpm horizon train`, Ctrl-C reaches pnpm too. Measured with pnpm 12.4.2 and `node --import
// tsx`: pnpm waits for this process, then prints "ELIFECYCLE Command failed with exit code 130" after
// our lines (1.8 s after the signal in an RL iteration). The first message says that line is this
// stop, not a failure, when a package manager started us (npm_lifecycle_event is set). Under the tsx
// CLI the child could be SIGKILLed instead (REPEAT_MS), which is why the root scripts no longer use it.

/**
 * A repeat within this long of the first signal is taken as the same one. The tsx CLI (`tsx
 * main.ts`) relays a signal to its child, re-sends it when the child has not acknowledged it within
 * 30 ms, and SIGKILLs the child 30 ms later (tsx 4.23, relaySignalToChild): a GPU step keeps the event
 * loop that long, so one Ctrl-C arrived twice (seen: SIGTERM in SFT stopped at once, 15 rows redone)
 * or killed the run outright (exit 130, nothing saved). `pnpm horizon` and `pnpm train` therefore run
 * `node --import tsx`, which has no relay; this window covers anyone who starts the tsx CLI by hand.
 * A person's second Ctrl-C comes later than this.
 */
export const REPEAT_MS = 250;

export type StopSignal = 'SIGINT' | 'SIGTERM';
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

export class StopSignals {
  /** The first signal received, if any. */
  signal: StopSignal | undefined;
  private firstAt = 0;
  private readonly handler = (signal: StopSignal) => {
    if (this.signal === undefined) {
      this.signal = signal;
      this.firstAt = performance.now();
      this.onFirst(signal);
    } else if (performance.now() - this.firstAt >= REPEAT_MS) this.onSecond(signal);
  };

  constructor(
    private readonly onFirst: (signal: StopSignal) => void,
    private readonly onSecond: (signal: StopSignal) => void,
  ) {
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  get requested(): boolean {
    return this.signal !== undefined;
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

/** True when a package manager's script runner (pnpm, npm) started this process. */
export const underScriptRunner = (): boolean => process.env.npm_lifecycle_event !== undefined;
