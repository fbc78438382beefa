// Which sequences the Generator's KV cache still holds between calls, so a multi-turn episode's next
// turn feeds only its new tokens (the observation and the action) instead of its whole context.
//
// After a call, a keyed row's cache holds the keys and values of every position fed so far: position
// t was fed its context token while t < context length, else the token sampled at t − 1. A later
// call whose row has the same key (rollout id, segment) starts that row at the longest common prefix
// of those tokens and its new context — capped one short of the context, because feeding the last
// context token is what gives the first logits. Keys and values of a position depend only on the
// tokens at and before it and on the weights (each row's math in the decode kernels is independent
// of the batch and of the other rows' positions: model/generate.test.ts checks reuse bit for bit
// against a re-prefill), so the skipped positions hold exactly what feeding them again would write.
//
// Where the rows live: decode state is allocated per batch size B. A call of the same B as the last
// keeps every known row in its slot (the Generator places call rows in slots freely), so nothing
// moves; a call of another B copies each reused row's cache block from the last call's state into
// its own (a different buffer, so a permutation never overwrites a row it still has to read).
// Only the last call's rows are remembered: an episode that misses a call (its tool still running)
// is fed from position 0 when it returns — correct, only slower. A new compaction segment has a new
// key, so nothing is reused across segments. Nothing here knows when the weights change: the owner
// calls `forget` then (GpuSampler.reseed, before every collection).

/** One sampler row's sequence, e.g. (rollout id, segment). */
export type RowKey = readonly [number, number];

export interface CachePlan {
  /** Slot of each call row in the decode state (a permutation of 0 … B − 1). */
  slots: number[];
  /** Leading positions of each row whose keys and values are already in its slot. */
  cachedLen: number[];
  /** Cache blocks to copy from the last call's state (of batch size `fromB`) before stepping. */
  copies: { fromB: number; moves: { from: number; to: number }[] } | undefined;
}

interface Remembered {
  slot: number;
  /** Tokens whose keys and values the row's cache holds, from position 0. */
  fed: number[];
}

export class CachedRows {
  private rows = new Map<string, Remembered>();
  /** Batch size of the decode state the remembered rows live in. */
  private B = 0;

  /** Forgets every row: the next call feeds each context from position 0 (call when the weights change). */
  forget(): void {
    this.rows.clear();
    this.B = 0;
  }

  /**
   * Where each row of a call of B contexts goes and how much of it is cached. Rows without a key,
   * with a key new or repeated within the call, get nothing. The memory is cleared until `remember`:
   * the call is about to overwrite the state.
   */
  plan(contexts: readonly (readonly number[])[], keys: readonly RowKey[] | undefined): CachePlan {
    const B = contexts.length;
    const known = keys ? uniqueKeys(keys).map((k) => (k === undefined ? undefined : this.rows.get(k))) : [];
    const cachedLen = contexts.map((ctx, b) => {
      const r = known[b];
      return r ? commonPrefix(r.fed, ctx, ctx.length - 1) : 0;
    });
    const fromB = this.B;
    this.forget();
    if (fromB === B) {
      // Same state: known rows stay where they are, the others take the free slots in order.
      const slots = new Array<number>(B).fill(-1);
      const taken = new Set<number>();
      for (let b = 0; b < B; b++) {
        const r = known[b];
        if (r && cachedLen[b] > 0) {
          slots[b] = r.slot;
          taken.add(r.slot);
        }
      }
      let free = 0;
      for (let b = 0; b < B; b++) {
        if (slots[b] >= 0) continue;
        while (taken.has(free)) free++;
        slots[b] = free++;
      }
      return { slots, cachedLen, copies: undefined };
    }
    const slots = contexts.map((_, b) => b);
    const moves = slots.flatMap((to, b) => (cachedLen[b] > 0 ? [{ from: (known[b] as Remembered).slot, to }] : []));
    return { slots, cachedLen, copies: moves.length > 0 ? { fromB, moves } : undefined };
  }

  /** Records what a finished call of batch size B fed: `fed[b]` for the row with `keys[b]`, in `slots[b]`. */
  remember(B: number, keys: readonly RowKey[] | undefined, slots: readonly number[], fed: (b: number) => number[]): void {
    this.forget();
    if (!keys) return;
    this.B = B;
    uniqueKeys(keys).forEach((k, b) => {
      if (k !== undefined) this.rows.set(k, { slot: slots[b], fed: fed(b) });
    });
  }
}

/** Each key as a string, or undefined where the key occurs more than once in the call (those rows share no cache). */
function uniqueKeys(keys: readonly RowKey[]): (string | undefined)[] {
  const names = keys.map(([a, b]) => `${a},${b}`);
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return names.map((n) => (counts.get(n) === 1 ? n : undefined));
}

/** Length of the common prefix of `a` and `b`, at most `cap`. */
function commonPrefix(a: readonly number[], b: readonly number[], cap: number): number {
  const n = Math.min(a.length, b.length, cap);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
