import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import { Shell } from '../shell.ts';
import { curlCommand } from './curl.ts';

const PAGES = { 'https://github.com/owner/repo/commit/abc.patch': '--- a/src/add.ts\n+++ b/src/add.ts\n' };

function sandbox() {
  const fs = new VirtualFs({ 'README.md': 'x' }, { protectedPaths: ['/.eval'] });
  const shell = new Shell({ fs, commands: shellRegistry([curlCommand(PAGES)]) });
  return { fs, run: (line: string) => shell.run(line) };
}

describe('simulated curl', () => {
  it('serves the pages the environment supplied, and records the fetch', async () => {
    const { run } = sandbox();
    const result = await run('curl -sL https://github.com/owner/repo/commit/abc.patch');
    expect(result).toMatchObject({ stdout: PAGES['https://github.com/owner/repo/commit/abc.patch'], exitCode: 0 });
    expect(result.accesses).toEqual([{ kind: 'net', path: 'https://github.com/owner/repo/commit/abc.patch', command: 'curl', outcome: 'ok' }]);
    expect((await run('curl github.com/owner/repo/commit/abc.patch/')).exitCode).toBe(0);
  });

  it('fails every other URL as an offline machine does', async () => {
    const { run } = sandbox();
    const result = await run('curl https://pypi.org/simple/');
    expect(result).toMatchObject({ stdout: '', stderr: 'curl: (6) Could not resolve host: pypi.org\n', exitCode: 6 });
    expect(result.accesses).toEqual([{ kind: 'net', path: 'https://pypi.org/simple/', command: 'curl', outcome: 'ENOHOST' }]);
    expect(await run('curl -s https://pypi.org/')).toMatchObject({ stderr: '', exitCode: 6 });
    expect(await run('curl')).toMatchObject({ exitCode: 2 });
  });

  it('writes to a file with -o, subject to the file system’s rules', async () => {
    const { run, fs } = sandbox();
    expect((await run('curl -o fix.patch https://github.com/owner/repo/commit/abc.patch')).exitCode).toBe(0);
    expect(fs.readFile('fix.patch')).toMatchObject({ value: PAGES['https://github.com/owner/repo/commit/abc.patch'] });
    expect(await run('curl -o .eval/x https://github.com/owner/repo/commit/abc.patch')).toMatchObject({ exitCode: 23 });
  });
});
