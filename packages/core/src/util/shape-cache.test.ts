// The per-shape buffer cache: an entry is made once per key, kept while it is used between sweeps,
// and released by the first sweep after an interval in which nothing used it.

import { describe, expect, it } from 'vitest';
import { ShapeCache } from './shape-cache.ts';

describe('ShapeCache', () => {
  it('makes an entry once, keeps used ones across a sweep, releases the idle ones', () => {
    const released: string[] = [];
    let made = 0;
    const cache = new ShapeCache<string>((v) => released.push(v));
    const make = (v: string) => () => {
      made++;
      return v;
    };
    expect(cache.get('4x8', make('a'))).toBe('a');
    expect(cache.get('4x8', make('b'))).toBe('a');
    cache.get('2x8', make('c'));
    expect(made).toBe(2);
    expect(cache.sweep()).toBe(0);
    cache.get('4x8', make('d'));
    expect(cache.sweep()).toBe(1);
    expect(released).toEqual(['c']);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(released).toEqual(['c', 'a']);
    expect(cache.size).toBe(0);
  });
});
