import { describe, expect, it } from 'vitest';
import { EVAL_SEED_SALT, episodeSeed, mixSeed } from './seeds.ts';

describe('episode seeds', () => {
  it('are deterministic u32 values, distinct across streams, indices and run seeds', () => {
    const seen = new Set<number>();
    for (const stream of ['train', 'sft', 'heldOut', 'ood'] as const)
      for (let i = 0; i < 2000; i++) {
        const s = episodeSeed(42, stream, i);
        expect(s).toBe(episodeSeed(42, stream, i));
        expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
        seen.add(s);
      }
    expect(seen.size).toBe(8000);
    expect(episodeSeed(1, 'train', 0)).not.toBe(episodeSeed(2, 'train', 0));
  });

  it('evaluation streams ignore the run seed', () => {
    expect(episodeSeed(1, 'heldOut', 3)).toBe(episodeSeed(999, 'heldOut', 3));
    expect(episodeSeed(1, 'ood', 3)).toBe(mixSeed(EVAL_SEED_SALT, 4, 3, 0));
  });

  it('indices past 2^32 stay distinct', () => {
    expect(episodeSeed(1, 'train', 2 ** 32)).not.toBe(episodeSeed(1, 'train', 0));
  });

  it('rejects words that are not u32 and negative indices', () => {
    expect(() => mixSeed(-1)).toThrow(RangeError);
    expect(() => mixSeed(2 ** 32)).toThrow(RangeError);
    expect(() => mixSeed(1.5)).toThrow(RangeError);
    expect(() => episodeSeed(1, 'train', -1)).toThrow(/index must be a non-negative integer/);
  });
});
