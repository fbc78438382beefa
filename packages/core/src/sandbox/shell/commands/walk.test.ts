import { describe, expect, it } from 'vitest';
import { AccessLog, RecordingFs } from '../../access-log.ts';
import { VirtualFs } from '../../virtual-fs.ts';
import { WorkBudget } from '../limits.ts';
import { walk } from './walk.ts';

describe('walk', () => {
  const vfs = new VirtualFs({ 'b/x': '', 'a/y': '', 'a/.z': '', '.eval/t': '' }, { protectedPaths: ['/.eval'] });
  const fs = new RecordingFs(vfs, new AccessLog(), 'find');

  it('visits depth first, sorted, parents before children, reporting folders it cannot list', () => {
    const seen: string[] = [];
    const errors: string[] = [];
    const done = walk(fs, '.', 'dir', { maxVisits: 100, work: new WorkBudget(1e6), onError: (shown, message) => errors.push(`${shown}: ${message}`) }, (e) =>
      seen.push(`${e.depth} ${e.shown}`),
    );
    expect(done).toBe(true);
    expect(seen).toEqual(['0 .', '1 ./.eval', '1 ./a', '2 ./a/.z', '2 ./a/y', '1 ./b', '2 ./b/x']);
    expect(errors).toEqual(['./.eval: Permission denied']);
  });

  it('stops at the depth and visit limits', () => {
    const seen: string[] = [];
    walk(fs, '/', 'dir', { maxDepth: 1, maxVisits: 100, work: new WorkBudget(1e6), onError: () => {} }, (e) => seen.push(e.shown));
    expect(seen).toEqual(['/', '/.eval', '/a', '/b']);
    expect(walk(fs, '/', 'dir', { maxVisits: 2, work: new WorkBudget(1e6), onError: () => {} }, () => {})).toBe(false);
  });
});
