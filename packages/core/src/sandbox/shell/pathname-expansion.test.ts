import { describe, expect, it } from 'vitest';
import { AccessLog, RecordingFs } from '../access-log.ts';
import { VirtualFs } from '../virtual-fs.ts';
import { WorkBudget } from './limits.ts';
import { expandPathname, unescapeGlob } from './pathname-expansion.ts';

const files = { 'a.ts': '', 'b.ts': '', 'c.txt': '', '.hidden.ts': '', 'src/x.ts': '', 'src/y.js': '', 'lib/z.ts': '', '.eval/t.ts': '' };

function expand(pattern: string, options: { protectedPaths?: string[]; cwd?: string; maxVisits?: number } = {}) {
  const vfs = new VirtualFs(files, { protectedPaths: options.protectedPaths ?? [], cwd: options.cwd });
  const log = new AccessLog();
  return { matches: expandPathname(pattern, new RecordingFs(vfs, log, 'sh'), options.maxVisits ?? 1000, new WorkBudget(1e6)), log };
}

describe('pathname expansion', () => {
  it('matches each component, sorted, keeping the spelling the agent typed', () => {
    expect(expand('*.ts').matches).toEqual(['a.ts', 'b.ts']);
    expect(expand('*/*.ts').matches).toEqual(['lib/z.ts', 'src/x.ts']);
    expect(expand('/src/*').matches).toEqual(['/src/x.ts', '/src/y.js']);
    expect(expand('./src/?.js').matches).toEqual(['./src/y.js']);
    expect(expand('../*.txt', { cwd: '/src' }).matches).toEqual(['../c.txt']);
  });

  it('needs an explicit dot for hidden names and treats escapes as literal', () => {
    expect(expand('.*.ts').matches).toEqual(['.hidden.ts']);
    expect(expand('\\*.ts').matches).toEqual([]);
    expect(unescapeGlob('a\\*b\\\\')).toBe('a*b\\');
  });

  it('finds nothing inside a protected folder, and records the denied listing', () => {
    const { matches, log } = expand('.eval/*', { protectedPaths: ['/.eval'] });
    expect(matches).toEqual([]);
    expect(log.entries).toContainEqual({ kind: 'list', path: '/.eval', command: 'sh', outcome: 'EACCES' });
  });

  it('gives up past the visit cap', () => {
    expect(expand('*', { maxVisits: 3 }).matches).toEqual([]);
    expect(expand('*', { maxVisits: 100 }).matches).toEqual(['a.ts', 'b.ts', 'c.txt', 'lib', 'src']);
  });
});
