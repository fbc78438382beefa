import { describe, expect, it } from 'vitest';
import { PREFILL_ROWS, prefillBufferRows, prefillChunkCap, prefillChunks } from './prefill-chunks.ts';

describe('prefill passes', () => {
  it('cap a pass at PREFILL_ROWS query rows and the context length, in powers of two', () => {
    expect(prefillChunkCap(1, 4096)).toBe(PREFILL_ROWS);
    expect(prefillChunkCap(64, 192)).toBe(16);
    expect(prefillChunkCap(3, 64)).toBe(64);
    expect(prefillChunkCap(100, 192)).toBe(8);
    expect(prefillChunkCap(5000, 192)).toBe(1); // more rows than PREFILL_ROWS: one position a pass
  });

  it('cover exactly the positions to feed: full passes, then the rest longest first', () => {
    expect(prefillChunks(0, 64, 192)).toEqual([]);
    expect(prefillChunks(39, 3, 64)).toEqual([32, 4, 2, 1]);
    expect(prefillChunks(50, 64, 192)).toEqual([16, 16, 16, 2]);
    for (let n = 0; n < 300; n++) {
      const chunks = prefillChunks(n, 64, 192);
      expect(chunks.reduce((a, b) => a + b, 0)).toBe(n);
      for (const S of chunks) expect(Number.isInteger(Math.log2(S)) && S <= 16).toBe(true);
    }
    expect(() => prefillChunks(-1, 4, 64)).toThrow(/non-negative integer/);
  });

  it('bound the rows a decode state holds for passes: one buffer set per power of two up to the cap', () => {
    expect(prefillBufferRows(64, 192)).toBe(64 * (16 + 8 + 4 + 2 + 1));
    expect(prefillBufferRows(5000, 192)).toBe(5000);
  });
});
