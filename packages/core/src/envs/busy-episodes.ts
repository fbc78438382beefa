// The episode runner's busy episodes (episode.ts): those whose reset, step, verifier or close is
// running, each one promise. A sampler call waits for them (up to the gather time) so that episodes
// ready at about the same moment share the call — except for an episode waiting on a sub-agent
// (delegate.ts): it cannot be ready before its child has been sampled, so a call that waited for it
// would wait for itself. Those are left out of `settled`, and a gather in progress is woken when an
// episode starts waiting, so it stops waiting for it at once.

export class BusyEpisodes {
  private readonly work = new Map<number, Promise<void>>();
  /** Episodes waiting on sub-agents, with how many waits each has open. */
  private readonly waiting = new Map<number, number>();
  private wake = () => {};
  private woken = this.nextWake();

  /** `onError`: what an episode's work that throws reports (the runner stops the batch with it). */
  constructor(private readonly onError: (error: unknown) => void) {}

  get size(): number {
    return this.work.size;
  }

  /** Runs episode `i`'s next piece of work; it is busy until that settles. */
  run(i: number, work: () => Promise<void>): void {
    const p: Promise<void> = work()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        if (this.work.get(i) === p) this.work.delete(i);
      });
    this.work.set(i, p);
  }

  /** Whether some busy episode is not waiting on a sub-agent (one a sampler call may wait for). */
  get anyActive(): boolean {
    return this.active().length > 0;
  }

  /**
   * Settles when any busy episode's work does, or when one starts waiting on a sub-agent: the
   * sub-agent's reset is new work, and its parent's work cannot settle before it has been sampled.
   */
  any(): Promise<void> {
    return Promise.race([...this.work.values(), this.woken]);
  }

  /** Settles once every busy episode that is not waiting on a sub-agent has settled. */
  async settled(): Promise<void> {
    for (let active = this.active(); active.length > 0; active = this.active()) await Promise.race([...active, this.woken]);
  }

  private active(): Promise<void>[] {
    return [...this.work].filter(([i]) => !this.waiting.has(i)).map(([, p]) => p);
  }

  /** Episode `i` waits on `work` (a sub-agent's answer): meanwhile no sampler call waits for it. */
  async waitingOn<T>(i: number, work: Promise<T>): Promise<T> {
    this.waiting.set(i, (this.waiting.get(i) ?? 0) + 1);
    this.wake();
    this.woken = this.nextWake();
    try {
      return await work;
    } finally {
      const n = (this.waiting.get(i) ?? 1) - 1;
      if (n > 0) this.waiting.set(i, n);
      else this.waiting.delete(i);
    }
  }

  private nextWake(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}
