import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import type { ShellLimits } from '../limits.ts';
import { Shell } from '../shell.ts';

const TASK = { 'a.txt': '', 'src/b.ts': '', 'src/deep/c.txt': '', 'src/.d.txt': '', '.eval/e.txt': '' };
const sandbox = (protectedPaths = ['/.eval'], limits: Partial<ShellLimits> = {}) => {
  const shell = new Shell({ fs: new VirtualFs(TASK, { protectedPaths }), commands: shellRegistry(), limits });
  return (line: string) => shell.run(line);
};

describe('find', () => {
  it('walks everything under the starting points, dotfiles included', async () => {
    const run = sandbox([]);
    expect((await run('find')).stdout).toBe('.\n./.eval\n./.eval/e.txt\n./a.txt\n./src\n./src/.d.txt\n./src/b.ts\n./src/deep\n./src/deep/c.txt\n');
    expect((await run('find src/deep /a.txt')).stdout).toBe('src/deep\nsrc/deep/c.txt\n/a.txt\n');
  });

  it('filters with -name, -iname, -path, -type, depth limits and !', async () => {
    const run = sandbox([]);
    expect((await run("find . -name '*.txt'")).stdout).toBe('./.eval/e.txt\n./a.txt\n./src/.d.txt\n./src/deep/c.txt\n');
    expect((await run("find src -iname '*.TS'")).stdout).toBe('src/b.ts\n');
    expect((await run("find . -path './src/*' -type f")).stdout).toBe('./src/.d.txt\n./src/b.ts\n./src/deep/c.txt\n');
    expect((await run('find . -type d')).stdout).toBe('.\n./.eval\n./src\n./src/deep\n');
    expect((await run('find . -maxdepth 1 -type f')).stdout).toBe('./a.txt\n');
    expect((await run('find src -mindepth 2')).stdout).toBe('src/deep/c.txt\n');
    expect((await run("find src ! -name '*.txt' -type f")).stdout).toBe('src/b.ts\n');
    expect((await run('find src/deep -print0')).stdout).toBe('src/deep\0src/deep/c.txt\0');
  });

  it('prints a protected folder, then reports it and exits 1', async () => {
    const run = sandbox();
    expect(await run('find . -name "*.txt"')).toMatchObject({
      stdout: './a.txt\n./src/.d.txt\n./src/deep/c.txt\n',
      stderr: "find: './.eval': Permission denied\n",
      exitCode: 1,
    });
    expect(await run('find .eval -type f')).toMatchObject({ stdout: '', stderr: "find: '.eval': Permission denied\n", exitCode: 1 });
    expect(await run('find nope')).toMatchObject({ stderr: "find: 'nope': No such file or directory\n", exitCode: 1 });
  });

  it('refuses unknown predicates and bad values', async () => {
    const run = sandbox();
    expect(await run('find . -exec cat {} ;')).toMatchObject({ stderr: "find: unknown predicate `-exec'\n", exitCode: 1 });
    expect(await run('find . -size 1')).toMatchObject({ stderr: "find: unknown predicate `-size'\n", exitCode: 1 });
    expect(await run('find . -type l')).toMatchObject({ exitCode: 1 });
    expect(await run('find . -name')).toMatchObject({ stderr: "find: missing argument to `-name'\n", exitCode: 1 });
  });

  it('stops after the visit cap', async () => {
    const run = sandbox([], { maxFindVisits: 3 });
    expect(await run('find .')).toMatchObject({
      stdout: '.\n./.eval\n./.eval/e.txt\n',
      stderr: "find: stopped after visiting 3 entries (the sandbox's limit)\n",
      exitCode: 1,
    });
  });
});
