// The KV-cache bookkeeping on its own, without a GPU: how much of each row is cached, where rows go
// between calls of the same and of different sizes, and what is forgotten.

import { describe, expect, it } from 'vitest';
import { CachedRows } from './cached-rows.ts';

/** A CachedRows that remembers one call of `contexts` whose slots are the call order and which fed `fed[b]`. */
function after(fed: number[][], keys: (readonly [number, number])[]): CachedRows {
  const rows = new CachedRows();
  const plan = rows.plan(fed, keys);
  rows.remember(fed.length, keys, plan.slots, (b) => fed[b]);
  return rows;
}

describe('CachedRows', () => {
  it('caches the common prefix of what was fed and the new context, one short of the context', () => {
    const rows = after(
      [
        [1, 2, 3, 4],
        [5, 6, 7],
        [8, 9],
      ],
      [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
    );
    const plan = rows.plan(
      [
        [1, 2, 3, 4, 9, 9],
        [5, 6, 7],
        [8, 0, 0],
      ],
      [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
    );
    // Row 0 extends its tokens; row 1 is the same context (its last token must be fed again); row 2 diverges at 1.
    expect(plan.cachedLen).toEqual([4, 2, 1]);
    expect(plan.slots).toEqual([0, 1, 2]);
    expect(plan.copies).toBeUndefined();
  });

  it('same batch size: known rows keep their slots, new ones take the free slots; other sizes copy known rows into call order', () => {
    const fed = [
      [1, 1],
      [2, 2],
      [3, 3],
    ];
    const same = after(fed, [
      [10, 0],
      [11, 0],
      [12, 0],
    ]).plan(
      [
        [3, 3, 0],
        [7, 7],
        [1, 1, 0],
      ],
      [
        [12, 0],
        [99, 0],
        [10, 0],
      ],
    );
    expect(same).toEqual({ slots: [2, 1, 0], cachedLen: [2, 0, 2], copies: undefined });
    const smaller = after(fed, [
      [10, 0],
      [11, 0],
      [12, 0],
    ]).plan(
      [
        [3, 3, 0],
        [2, 2, 0],
      ],
      [
        [12, 0],
        [11, 0],
      ],
    );
    expect(smaller).toEqual({
      slots: [0, 1],
      cachedLen: [2, 2],
      copies: {
        fromB: 3,
        moves: [
          { from: 2, to: 0 },
          { from: 1, to: 1 },
        ],
      },
    });
  });

  it('reuses nothing for a new segment, repeated keys, unkeyed calls or after forget; only the last call is remembered', () => {
    const fed = [[1, 2, 3]];
    const ctx = [[1, 2, 3, 4]];
    expect(after(fed, [[0, 0]]).plan(ctx, [[0, 1]]).cachedLen).toEqual([0]);
    expect(after(fed, [[0, 0]]).plan(ctx, undefined).cachedLen).toEqual([0]);
    const forgotten = after(fed, [[0, 0]]);
    forgotten.forget();
    expect(forgotten.plan(ctx, [[0, 0]]).cachedLen).toEqual([0]);
    const twice = after(
      [
        [1, 2, 3],
        [1, 2, 3],
      ],
      [
        [0, 0],
        [0, 0],
      ],
    );
    expect(twice.plan(ctx, [[0, 0]]).cachedLen).toEqual([0]);
    // A call plans away the memory: a row of the call before last is fed from 0.
    const rows = after(fed, [[0, 0]]);
    rows.plan([[5, 5]], [[1, 0]]);
    rows.remember(1, [[1, 0]], [0], () => [5, 5]);
    expect(rows.plan(ctx, [[0, 0]]).cachedLen).toEqual([0]);
  });
});
