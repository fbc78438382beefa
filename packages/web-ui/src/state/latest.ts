// Latest-wins requests: while one computation is in flight, only the newest request waits behind
// it; older ones are dropped. A slider dragged across its range sends dozens of inputs a second, and
// the worker should compute the position the learner stopped at, not replay every position between.

export class LatestOnly<Req, Res> {
  private running = false;
  private next: Req | undefined;
  private hasNext = false;

  constructor(
    private readonly compute: (request: Req) => Promise<Res>,
    private readonly deliver: (result: Res) => void,
    private readonly fail: (error: unknown) => void,
  ) {}

  /** Queues `request`, replacing any queued one; starts it at once when nothing runs. */
  request(request: Req): void {
    this.next = request;
    this.hasNext = true;
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.hasNext) {
      const request = this.next as Req;
      this.hasNext = false;
      try {
        const result = await this.compute(request);
        // A newer request supersedes this result only if it is already waiting; deliver otherwise.
        if (!this.hasNext) this.deliver(result);
      } catch (error) {
        this.fail(error);
      }
    }
    this.running = false;
  }
}
