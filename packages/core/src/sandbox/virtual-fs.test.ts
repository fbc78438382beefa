import { describe, expect, it } from 'vitest';
import { VirtualFs } from './virtual-fs.ts';

const TASK = { 'README.md': '# Task\n', 'src/add.ts': 'export const add = (a, b) => a - b;\n', 'src/lib/util.ts': 'u\n', '.eval/expected.txt': '3\n' };

function value<T>(result: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('virtual file system', () => {
  it('builds folders from file paths and lists them sorted, dotfiles included', () => {
    const fs = new VirtualFs(TASK);
    expect(value(fs.list('/')).map((e) => `${e.kind}:${e.name}`)).toEqual(['dir:.eval', 'file:README.md', 'dir:src']);
    expect(value(fs.list('src')).map((e) => e.name)).toEqual(['add.ts', 'lib']);
    expect(value(fs.stat('/src/lib'))).toEqual({ kind: 'dir' });
    expect(value(fs.stat('README.md'))).toEqual({ kind: 'file', size: 7 });
  });

  it('gives errno-like results for missing paths, folders and files used as folders', () => {
    const fs = new VirtualFs(TASK);
    expect(fs.readFile('nope')).toMatchObject({ ok: false, code: 'ENOENT', message: 'No such file or directory' });
    expect(fs.readFile('src')).toMatchObject({ ok: false, code: 'EISDIR' });
    expect(fs.readFile('README.md/x')).toMatchObject({ ok: false, code: 'ENOTDIR' });
    expect(fs.list('README.md')).toMatchObject({ ok: false, code: 'ENOTDIR' });
    expect(fs.writeFile('src', 'x')).toMatchObject({ ok: false, code: 'EISDIR' });
    expect(fs.writeFile('README.md/x', 'x')).toMatchObject({ ok: false, code: 'ENOTDIR' });
  });

  it('resolves relative paths against its working directory and cannot leave the root', () => {
    const fs = new VirtualFs(TASK);
    expect(value(fs.changeDirectory('src/lib'))).toBe('/src/lib');
    expect(value(fs.readFile('util.ts'))).toBe('u\n');
    expect(value(fs.readFile('../../../../README.md'))).toBe('# Task\n');
    expect(fs.changeDirectory('../add.ts')).toMatchObject({ ok: false, code: 'ENOTDIR' });
    expect(fs.changeDirectory('missing')).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(fs.cwd).toBe('/src/lib');
  });

  it('writes to an overlay and deletes by whiteouts, leaving the base untouched', () => {
    const base = { ...TASK };
    const fs = new VirtualFs(base);
    value(fs.writeFile('src/add.ts', 'export const add = (a, b) => a + b;\n'));
    value(fs.writeFile('notes/new.txt', 'n'));
    value(fs.writeFile('notes/new.txt', 'm', true));
    value(fs.remove('README.md'));
    expect(base).toEqual(TASK);
    expect(value(fs.readFile('src/add.ts'))).toContain('a + b');
    expect(value(fs.readFile('notes/new.txt'))).toBe('nm');
    expect(fs.readFile('README.md')).toMatchObject({ code: 'ENOENT' });
    expect(fs.changes().map((c) => `${c.kind} ${c.path}`)).toEqual(['deleted /README.md', 'added /notes/new.txt', 'modified /src/add.ts']);
    expect(fs.overlayBytes).toBe('export const add = (a, b) => a + b;\n'.length + 2);
  });

  it('makes folders vanish with their last file, and rm -r whites out a whole folder', () => {
    const fs = new VirtualFs(TASK);
    value(fs.remove('src/lib/util.ts'));
    expect(fs.stat('src/lib')).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(fs.remove('src')).toMatchObject({ ok: false, code: 'EISDIR' });
    value(fs.remove('src', true));
    expect(fs.stat('src')).toMatchObject({ code: 'ENOENT' });
    expect(value(fs.list('/')).map((e) => e.name)).toEqual(['.eval', 'README.md']);
  });

  it('restores paths to the base, writes and deletes alike', () => {
    const fs = new VirtualFs(TASK);
    value(fs.writeFile('src/add.ts', 'broken'));
    value(fs.writeFile('src/extra.ts', 'x'));
    value(fs.remove('src/lib', true));
    value(fs.writeFile('README.md', 'kept'));
    fs.restore(['/src']);
    expect(value(fs.readFile('src/add.ts'))).toBe(TASK['src/add.ts']);
    expect(fs.readFile('src/extra.ts')).toMatchObject({ code: 'ENOENT' });
    expect(value(fs.readFile('src/lib/util.ts'))).toBe('u\n');
    expect(value(fs.readFile('README.md'))).toBe('kept');
    expect(fs.overlayBytes).toBe(4);
  });

  it('counts a write that puts back the base content as no change', () => {
    const fs = new VirtualFs(TASK);
    value(fs.writeFile('README.md', 'x'));
    value(fs.writeFile('README.md', TASK['README.md']));
    expect(fs.changes()).toEqual([]);
  });

  describe('protected paths', () => {
    const fs = new VirtualFs(TASK, { protectedPaths: ['.eval'] });

    it('shows a protected folder in its parent but denies reading, listing, entering and writing', () => {
      expect(value(fs.list('/')).map((e) => e.name)).toContain('.eval');
      expect(value(fs.stat('.eval'))).toEqual({ kind: 'dir' });
      for (const result of [
        fs.readFile('.eval/expected.txt'),
        fs.list('.eval'),
        fs.changeDirectory('.eval'),
        fs.writeFile('.eval/expected.txt', 'x'),
        fs.remove('.eval', true),
      ]) {
        expect(result).toMatchObject({ ok: false, code: 'EACCES', message: 'Permission denied' });
      }
      expect(fs.stat('.eval/expected.txt')).toMatchObject({ code: 'EACCES' });
    });

    it('denies every spelling of the path', () => {
      for (const path of ['/.eval/expected.txt', 'src/../.eval/expected.txt', '//.eval//expected.txt', '/../.eval/./expected.txt']) {
        expect(fs.readFile(path)).toMatchObject({ code: 'EACCES' });
      }
      expect(value(fs.readFile('/.evaluation-not-protected/../README.md'))).toBe('# Task\n');
    });

    it('rm -r / leaves the protected folder in place', () => {
      const copy = fs.fork();
      value(copy.remove('/', true));
      expect(value(copy.list('/')).map((e) => e.name)).toEqual(['.eval']);
    });
  });

  it('grades in a fresh copy: the agent’s changes kept, protected paths restored and readable', () => {
    const fs = new VirtualFs(TASK, { protectedPaths: [] });
    value(fs.writeFile('src/add.ts', 'fixed'));
    value(fs.writeFile('.eval/expected.txt', 'weakened'));
    const grading = fs.forGrading(['/.eval']);
    expect(value(grading.readFile('src/add.ts'))).toBe('fixed');
    expect(value(grading.readFile('.eval/expected.txt'))).toBe('3\n');
    expect(value(fs.readFile('.eval/expected.txt'))).toBe('weakened');
    const closed = new VirtualFs(TASK, { protectedPaths: ['/.eval'] });
    expect(value(closed.forGrading().readFile('.eval/expected.txt'))).toBe('3\n');
    expect(value(fs.fork({ keepChanges: false }).readFile('src/add.ts'))).toBe(TASK['src/add.ts']);
  });

  it('refuses writes past the file and overlay caps with an error, not an exception', () => {
    const fs = new VirtualFs(TASK, { maxFileBytes: 10, maxOverlayBytes: 15 });
    expect(fs.writeFile('a', 'x'.repeat(11))).toMatchObject({ ok: false, code: 'EFBIG', message: 'File too large' });
    value(fs.writeFile('a', 'x'.repeat(10)));
    expect(fs.writeFile('b', 'y'.repeat(6))).toMatchObject({ ok: false, code: 'ENOSPC', message: 'No space left on device' });
    expect(fs.writeFile('a', 'x', true)).toMatchObject({ code: 'EFBIG' });
    value(fs.writeFile('a', 'z'));
    value(fs.writeFile('b', 'y'.repeat(10)));
    expect(fs.overlayBytes).toBe(11);
    expect(fs.writeFile('c', '€€')).toMatchObject({ code: 'ENOSPC' });
  });

  it('rejects a malformed task with a sentence naming the path', () => {
    expect(() => new VirtualFs({ a: '1', '/a': '2' })).toThrow(/names the file \/a twice/);
    expect(() => new VirtualFs({ a: '1', 'a/b': '2' })).toThrow(/both as a file and as a folder/);
    expect(() => new VirtualFs({ '/': 'x' })).toThrow(/root folder/);
  });
});
