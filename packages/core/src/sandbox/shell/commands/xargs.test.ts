import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import type { ShellLimits } from '../limits.ts';
import { Shell } from '../shell.ts';
import { splitXargsInput } from './xargs.ts';

const sandbox = (limits: Partial<ShellLimits> = {}) => {
  const shell = new Shell({ fs: new VirtualFs({ 'a.txt': 'A\n', 'b c.txt': 'BC\n' }), commands: shellRegistry(), limits });
  return (line: string) => shell.run(line);
};

describe('xargs', () => {
  it('appends its input to the command, echo by default', async () => {
    const run = sandbox();
    expect((await run("echo 'a.txt' | xargs cat")).stdout).toBe('A\n');
    expect((await run('echo x y | xargs')).stdout).toBe('x y\n');
    expect((await run('echo a.txt \'"b c.txt"\' | xargs cat')).stdout).toBe('A\nBC\n');
  });

  it('splits runs with -n, substitutes lines with -I, and skips an empty input with -r', async () => {
    const run = sandbox();
    const perOne = await run('echo 1 2 3 | xargs -n 2 echo');
    expect(perOne.stdout).toBe('1 2\n3\n');
    expect(perOne.commands).toEqual([
      ['echo', '1', '2', '3'],
      ['xargs', '-n', '2', 'echo'],
      ['echo', '1', '2'],
      ['echo', '3'],
    ]);
    expect((await run("echo 'b c.txt' | xargs -I {} cat {}")).stdout).toBe('BC\n');
    expect((await run('echo | xargs -r echo ran')).stdout).toBe('');
    expect((await run('echo | xargs echo ran')).stdout).toBe('ran\n');
    expect((await run("find . -name 'b*' -print0 | xargs -0 cat")).stdout).toBe('BC\n');
  });

  it('exits 123 when a run fails and 127 when the command does not exist', async () => {
    const run = sandbox();
    expect(await run('echo nope.txt a.txt | xargs -n 1 cat')).toMatchObject({
      stdout: 'A\n',
      stderr: 'cat: nope.txt: No such file or directory\n',
      exitCode: 123,
    });
    expect(await run('echo a | xargs frob')).toMatchObject({ stderr: 'xargs: frob: No such file or directory\n', exitCode: 127 });
  });

  it('caps its fan-out', async () => {
    const run = sandbox({ maxXargsInvocations: 2, maxXargsArgs: 5 });
    expect(await run('echo 1 2 3 | xargs -n 1 echo')).toMatchObject({
      stdout: '1\n2\n',
      stderr: "xargs: stopped after 2 runs of echo (the sandbox's limit)\n",
      exitCode: 1,
    });
    expect(await run('echo 1 2 3 4 5 6 | xargs echo')).toMatchObject({ stderr: "xargs: the input has 6 arguments; the sandbox's limit is 5\n", exitCode: 1 });
  });

  it('splits input on blanks with quotes and backslashes, and names an unmatched quote', () => {
    expect(splitXargsInput(` a  'b c'\n"d"e f\\ g `)).toEqual({ ok: true, args: ['a', 'b c', 'de', 'f g'] });
    expect(splitXargsInput("it's")).toMatchObject({ ok: false, error: expect.stringMatching(/unmatched single quote/) });
  });
});
