import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import type { ShellLimits } from '../limits.ts';
import { Shell } from '../shell.ts';

const TASK = { 'a.txt': 'Alpha\nbeta\ngamma\n', 'src/x.ts': 'const beta = 1;\n', 'src/.hidden': 'beta hidden\n', '.eval/t.txt': 'beta secret\n' };
const sandbox = (protectedPaths = ['/.eval'], limits: Partial<ShellLimits> = {}) => {
  const fs = new VirtualFs(TASK, { protectedPaths });
  const shell = new Shell({ fs, commands: shellRegistry(), limits });
  return (line: string) => shell.run(line);
};

describe('grep', () => {
  it('searches a file, several files (with names) and stdin', async () => {
    const run = sandbox();
    expect(await run('grep beta a.txt')).toMatchObject({ stdout: 'beta\n', exitCode: 0 });
    expect((await run('grep beta a.txt src/x.ts')).stdout).toBe('a.txt:beta\nsrc/x.ts:const beta = 1;\n');
    expect((await run('cat a.txt | grep -n amm')).stdout).toBe('3:gamma\n');
    expect(await run('grep zeta a.txt')).toMatchObject({ stdout: '', exitCode: 1 });
  });

  it('reads -i, -v, -c, -l, -L, -h, -H, -q, -F, -E and -e', async () => {
    const run = sandbox();
    expect((await run('grep -i alpha a.txt')).stdout).toBe('Alpha\n');
    expect((await run('grep -v a a.txt')).stdout).toBe('');
    expect((await run('grep -vc eta a.txt')).stdout).toBe('2\n');
    expect((await run('grep -l beta a.txt src/x.ts nope.txt')).stdout).toBe('a.txt\nsrc/x.ts\n');
    expect((await run('grep -L gamma a.txt src/x.ts')).stdout).toBe('src/x.ts\n');
    expect((await run('grep -h beta a.txt src/x.ts')).stdout).toBe('beta\nconst beta = 1;\n');
    expect((await run('grep -H beta a.txt')).stdout).toBe('a.txt:beta\n');
    expect(await run('grep -q beta a.txt')).toMatchObject({ stdout: '', exitCode: 0 });
    expect((await run("grep -F 'a.' a.txt")).stdout).toBe('');
    expect((await run("grep 'a.' a.txt")).stdout).toBe('gamma\n');
    expect((await run("grep -E 'beta|gamma' a.txt")).stdout).toBe('beta\ngamma\n');
    expect((await run("grep 'beta\\|gamma' a.txt")).stdout).toBe('beta\ngamma\n');
    expect((await run('grep -e -v a.txt')).exitCode).toBe(1);
  });

  it('recurses with -r, dotfiles included, naming files without ./ when no folder was given', async () => {
    const run = sandbox([]);
    expect((await run('grep -r beta')).stdout).toBe('.eval/t.txt:beta secret\na.txt:beta\nsrc/.hidden:beta hidden\nsrc/x.ts:const beta = 1;\n');
    expect((await run('grep -rl beta src')).stdout).toBe('src/.hidden\nsrc/x.ts\n');
    expect((await run('grep -rn beta .')).stdout).toContain('./a.txt:2:beta\n');
    expect(await run('grep beta src')).toMatchObject({ stderr: 'grep: src: Is a directory\n', exitCode: 2 });
  });

  it('reports a protected folder, finds what else matches, and exits 2', async () => {
    const run = sandbox();
    const result = await run('grep -r secret .');
    expect(result).toMatchObject({ stdout: '', stderr: 'grep: ./.eval: Permission denied\n', exitCode: 2 });
    expect(result.accesses).toContainEqual({ kind: 'list', path: '/.eval', command: 'grep', outcome: 'EACCES' });
    expect(await run('grep -rs secret .')).toMatchObject({ stderr: '', exitCode: 2 });
    expect(await run('grep t .eval/t.txt')).toMatchObject({ stderr: 'grep: .eval/t.txt: Permission denied\n', exitCode: 2 });
  });

  it('refuses patterns it cannot match safely, and overlong ones', async () => {
    const run = sandbox(undefined, { maxPatternChars: 10 });
    expect(await run("grep '\\(a\\)\\1' a.txt")).toMatchObject({ stderr: 'grep: back-references (\\1 … \\9) are not supported\n', exitCode: 2 });
    expect((await run(`grep ${'a'.repeat(11)} a.txt`)).stderr).toMatch(/11 characters long; the sandbox's limit is 10/);
    expect(await run('grep')).toMatchObject({ exitCode: 2 });
  });

  it('answers a catastrophic pattern on a long line within a bounded number of steps', async () => {
    const fs = new VirtualFs({ 'long.txt': `${'a'.repeat(100_000)}!\n` });
    const shell = new Shell({ fs, commands: shellRegistry(), limits: { maxWorkSteps: 10_000_000 } });
    const result = await shell.run("grep -E '(a+)+$' long.txt; grep -E '(a|aa)*b' long.txt");
    // Both finish inside the budget (a backtracking engine would not finish at all): no 124.
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('');
  });
});
