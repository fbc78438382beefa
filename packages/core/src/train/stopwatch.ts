// Wall-clock laps for the perf/*_s metrics of an iteration.

export class Stopwatch {
  private readonly start = performance.now();
  private last = this.start;

  lap(): number {
    const now = performance.now();
    const seconds = (now - this.last) / 1000;
    this.last = now;
    return seconds;
  }

  total(): number {
    return (performance.now() - this.start) / 1000;
  }
}
