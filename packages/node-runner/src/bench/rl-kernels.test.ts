import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { benchRlKernels } from './rl-kernels.ts';

describe('RL-kernel bench rows', () => {
  it('quick rows: GPU elements/s beside the TypeScript reference, each checked before it is timed', async () => {
    const gpu = await testGpu();
    const wanted = new Set(['gae loop 64×512', 'ppo loss 64×512']);
    const rows = await benchRlKernels(gpu, { quick: true, wants: (name) => wanted.has(name) });
    expect(rows.map((r) => r.name)).toEqual(['gae loop 64×512', 'ppo loss 64×512']);
    for (const row of rows) {
      expect(row.unit).toBe('elements/s');
      expect(row.peerName).toBe('TS reference (CPU)');
      expect(row.ours).toBeGreaterThan(0);
      expect(row.ratio).toBeCloseTo((row.ours as number) / (row.peer as number), 9);
      expect(row.note).toMatch(/checked to \de-\d+/);
    }
  });
});
