import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import { Shell } from '../shell.ts';
import { linesOf } from './files.ts';

const TASK = { 'NOTES.txt': 'one\ntwo\nthree\n', 'src/a.ts': 'a\n', 'src/b.ts': 'b1\nb2', '.env': 'SECRET=1\n', '.eval/t.txt': 't\n' };
const sandbox = () => {
  const fs = new VirtualFs(TASK, { protectedPaths: ['/.eval'] });
  return { fs, run: (line: string) => new Shell({ fs, commands: shellRegistry() }).run(line) };
};

describe('file commands', () => {
  it('ls hides dotfiles unless -a or -A, marks folders with -F, and prints modes and sizes with -l', async () => {
    const { run } = sandbox();
    expect((await run('ls')).stdout).toBe('NOTES.txt\nsrc\n');
    expect((await run('ls -a')).stdout).toBe('.\n..\n.env\n.eval\nNOTES.txt\nsrc\n');
    expect((await run('ls -A')).stdout).toBe('.env\n.eval\nNOTES.txt\nsrc\n');
    expect((await run('ls -F')).stdout).toBe('NOTES.txt\nsrc/\n');
    expect((await run('ls -l src')).stdout).toBe('-rw-r--r--        2 a.ts\n-rw-r--r--        5 b.ts\n');
    expect((await run('ls -la')).stdout).toContain('d---------        0 .eval\n');
    expect((await run('ls src/a.ts NOTES.txt')).stdout).toBe('src/a.ts\nNOTES.txt\n');
    expect((await run('ls NOTES.txt src')).stdout).toBe('NOTES.txt\n\nsrc:\na.ts\nb.ts\n');
  });

  it('ls reports missing and protected paths with status 2', async () => {
    const { run } = sandbox();
    expect(await run('ls nope')).toMatchObject({ stderr: "ls: cannot access 'nope': No such file or directory\n", exitCode: 2 });
    expect(await run('ls .eval')).toMatchObject({ stderr: "ls: cannot open directory '.eval': Permission denied\n", exitCode: 2 });
    expect(await run('ls .eval/t.txt')).toMatchObject({ stderr: "ls: cannot access '.eval/t.txt': Permission denied\n", exitCode: 2 });
    expect(await run('ls -z')).toMatchObject({ stderr: "ls: invalid option -- 'z'\n", exitCode: 2 });
  });

  it('cat prints files and stdin in order, numbers lines with -n, and goes on past a failure', async () => {
    const { run } = sandbox();
    expect((await run('cat src/a.ts src/b.ts')).stdout).toBe('a\nb1\nb2');
    expect((await run('echo in | cat src/a.ts - src/a.ts')).stdout).toBe('a\nin\na\n');
    expect((await run('cat -n NOTES.txt')).stdout).toBe('     1\tone\n     2\ttwo\n     3\tthree\n');
    expect(await run('cat nope src/a.ts')).toMatchObject({ stdout: 'a\n', stderr: 'cat: nope: No such file or directory\n', exitCode: 1 });
    expect(await run('cat src')).toMatchObject({ stderr: 'cat: src: Is a directory\n', exitCode: 1 });
  });

  it('head takes -n N, -N and --lines, with headers for several files', async () => {
    const { run } = sandbox();
    expect((await run('head -n 2 NOTES.txt')).stdout).toBe('one\ntwo\n');
    expect((await run('head -1 NOTES.txt')).stdout).toBe('one\n');
    expect((await run('head --lines=1 NOTES.txt')).stdout).toBe('one\n');
    expect((await run('head -n 1 NOTES.txt src/b.ts')).stdout).toBe('==> NOTES.txt <==\none\n\n==> src/b.ts <==\nb1\n');
    expect((await run('head -n 5 src/b.ts')).stdout).toBe('b1\nb2');
    expect(await run('head -n x NOTES.txt')).toMatchObject({ stderr: "head: invalid number of lines: 'x'\n", exitCode: 1 });
  });

  it('wc counts lines, words and bytes', async () => {
    const { run } = sandbox();
    expect((await run('wc -l NOTES.txt')).stdout).toBe('3 NOTES.txt\n');
    expect((await run('cat NOTES.txt | wc -l')).stdout).toBe('3\n');
    expect((await run('echo a bc | wc')).stdout).toBe('      1       2       5\n');
    expect((await run('wc -c src/a.ts src/b.ts')).stdout).toBe('2 src/a.ts\n5 src/b.ts\n7 total\n');
  });

  it('echo joins its arguments and reads -n and -e', async () => {
    const { run } = sandbox();
    expect((await run('echo a   b')).stdout).toBe('a b\n');
    expect((await run('echo -n a')).stdout).toBe('a');
    expect((await run("echo -e 'a\\tb\\nc'")).stdout).toBe('a\tb\nc\n');
    expect((await run("echo 'a\\nb'")).stdout).toBe('a\\nb\n');
    expect((await run('echo -x')).stdout).toBe('-x\n');
  });

  it('rm deletes files, folders with -r, ignores missing ones with -f', async () => {
    const { run, fs } = sandbox();
    expect((await run('rm src/a.ts')).exitCode).toBe(0);
    expect(fs.stat('src/a.ts').ok).toBe(false);
    expect(await run('rm src')).toMatchObject({ stderr: "rm: cannot remove 'src': Is a directory\n", exitCode: 1 });
    expect((await run('rm -r src')).exitCode).toBe(0);
    expect(await run('rm nope')).toMatchObject({ stderr: "rm: cannot remove 'nope': No such file or directory\n", exitCode: 1 });
    expect((await run('rm -f nope')).exitCode).toBe(0);
    expect(await run('rm')).toMatchObject({ stderr: 'rm: missing operand\n', exitCode: 1 });
  });

  it('pwd and cd', async () => {
    const { run } = sandbox();
    expect((await run('cd src && pwd && cd && pwd')).stdout).toBe('/src\n/\n');
    expect(await run('cd nope')).toMatchObject({ stderr: 'sh: cd: nope: No such file or directory\n', exitCode: 1 });
    expect(await run('cd NOTES.txt')).toMatchObject({ stderr: 'sh: cd: NOTES.txt: Not a directory\n', exitCode: 1 });
    expect(await run('cd a b')).toMatchObject({ stderr: 'sh: cd: too many arguments\n', exitCode: 1 });
  });

  it('splits text into lines without inventing a last empty one', () => {
    expect(linesOf('')).toEqual([]);
    expect(linesOf('a\nb\n')).toEqual(['a', 'b']);
    expect(linesOf('a\n\nb')).toEqual(['a', '', 'b']);
  });
});
