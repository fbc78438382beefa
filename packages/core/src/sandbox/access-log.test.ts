import { describe, expect, it } from 'vitest';
import { AccessLog, RecordingFs } from './access-log.ts';
import { VirtualFs } from './virtual-fs.ts';

describe('access record', () => {
  const setup = () => {
    const vfs = new VirtualFs({ 'a.txt': 'a', '.eval/expected.txt': 'e' }, { protectedPaths: ['/.eval'] });
    const log = new AccessLog();
    return { vfs, log, fs: new RecordingFs(vfs, log, 'cat') };
  };

  it('records each operation with its normalised path, kind, command and outcome', () => {
    const { log, fs } = setup();
    fs.readFile('a.txt');
    fs.readFile('./x/../.eval/expected.txt');
    fs.as('echo').writeFile('b.txt', 'b');
    fs.list('/');
    fs.stat('missing');
    expect(log.entries).toEqual([
      { kind: 'read', path: '/a.txt', command: 'cat', outcome: 'ok' },
      { kind: 'read', path: '/.eval/expected.txt', command: 'cat', outcome: 'EACCES' },
      { kind: 'write', path: '/b.txt', command: 'echo', outcome: 'ok' },
      { kind: 'list', path: '/', command: 'cat', outcome: 'ok' },
      { kind: 'stat', path: '/missing', command: 'cat', outcome: 'ENOENT' },
    ]);
  });

  it('picks out the accesses that touched protected paths', () => {
    const { vfs, log, fs } = setup();
    fs.readFile('a.txt');
    fs.list('.eval');
    fs.fetched('https://example.com/.eval', false);
    expect(log.touching((p) => vfs.isProtected(p))).toEqual([{ kind: 'list', path: '/.eval', command: 'cat', outcome: 'EACCES' }]);
  });

  it('records runs, fetches and reads from outside the file system', () => {
    const { log, fs } = setup();
    expect(fs.exec('.eval/expected.txt')).toMatchObject({ ok: false, code: 'EACCES' });
    expect(fs.exec('a.txt').ok).toBe(true);
    fs.fetched('https://github.com/o/r', false);
    fs.readElsewhere('src/x.ts', 'git show HEAD:src/x.ts');
    expect(log.entries.map((a) => `${a.kind} ${a.path} ${a.outcome}${a.detail ? ` (${a.detail})` : ''}`)).toEqual([
      'exec /.eval/expected.txt EACCES',
      'exec /a.txt ok',
      'net https://github.com/o/r ENOHOST',
      'read /src/x.ts ok (git show HEAD:src/x.ts)',
    ]);
  });

  it('hides protected paths from the diff of changes', () => {
    const vfs = new VirtualFs({ 'a.txt': 'a' }, { protectedPaths: [] });
    vfs.writeFile('.eval/new.txt', 'x');
    vfs.writeFile('a.txt', 'b');
    const closed = vfs.fork({ protectedPaths: ['/.eval'] });
    const log = new AccessLog();
    expect(new RecordingFs(closed, log, 'git').changes().map((c) => c.path)).toEqual(['/a.txt']);
    expect(log.entries).toEqual([{ kind: 'read', path: '/a.txt', command: 'git', outcome: 'ok', detail: 'diff against the base' }]);
  });
});
