// GPU buffers kept per batch shape (B × T), released when a shape falls out of use. The trainer's
// shapes change from iteration to iteration — T with the longest sample, B with failed and dropped
// rollouts and, with compaction, with the number of segments — and a buffer set per shape kept
// forever grows a long run's memory without bound (a compacted LongStream batch is 16–96 rows at up
// to 16 lengths). Each cache remembers which entries were used since its last sweep; the trainer
// sweeps after every iteration, when every command that used them has been read back.

export class ShapeCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly used = new Set<string>();

  constructor(private readonly release: (value: V) => void) {}

  /** The entry for `key`, made by `make` if there is none; marks it used. */
  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make();
      this.entries.set(key, value);
    }
    this.used.add(key);
    return value;
  }

  /** Releases every entry not used since the last sweep; returns how many. */
  sweep(): number {
    let released = 0;
    for (const [key, value] of this.entries) {
      if (this.used.has(key)) continue;
      this.release(value);
      this.entries.delete(key);
      released++;
    }
    this.used.clear();
    return released;
  }

  /** Releases every entry. */
  clear(): void {
    for (const value of this.entries.values()) this.release(value);
    this.entries.clear();
    this.used.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }
}
