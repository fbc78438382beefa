import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../../virtual-fs.ts';
import { shellRegistry } from '../builtins.ts';
import { Shell } from '../shell.ts';
import { type GitHistory, gitCommand } from './git.ts';

const HISTORY: GitHistory = {
  commits: [
    {
      hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      message: 'Add add()',
      author: 'Ada <ada@example.com>',
      date: 'Mon Jan 5 10:00:00 2026 +0000',
      changes: { 'src/add.ts': 'export const add = (a, b) => a - b;\n', 'README.md': '# Add\n' },
    },
    {
      hash: 'b2c3d4e5f60718293a4b5c6d7e8f901234567890',
      message: 'Document add\n\nWith an example.',
      author: 'Ada <ada@example.com>',
      changes: { 'README.md': '# Add\nadd(1, 2)\n' },
    },
    // The future: the fix, after HEAD, reachable through a ref.
    { hash: 'c3d4e5f60718293a4b5c6d7e8f90123456789012', message: 'Fix add', changes: { 'src/add.ts': 'export const add = (a, b) => a + b;\n' } },
  ],
  head: 'b2c3d4e5f60718293a4b5c6d7e8f901234567890',
  refs: { 'origin/main': 'c3d4e5f60718293a4b5c6d7e8f90123456789012' },
  remoteUrl: 'https://github.com/owner/add.git',
};

function sandbox() {
  const fs = new VirtualFs({ 'src/add.ts': 'export const add = (a, b) => a - b;\n', 'README.md': '# Add\nadd(1, 2)\n' });
  const shell = new Shell({ fs, commands: shellRegistry([gitCommand(HISTORY)]) });
  return { fs, run: (line: string) => shell.run(line) };
}

describe('simulated git', () => {
  it('logs from HEAD back, in full or one line each', async () => {
    const { run } = sandbox();
    expect((await run('git log --oneline')).stdout).toBe('b2c3d4e Document add\na1b2c3d Add add()\n');
    expect((await run('git log -n 1')).stdout).toBe(
      'commit b2c3d4e5f60718293a4b5c6d7e8f901234567890\nAuthor: Ada <ada@example.com>\n\n    Document add\n    \n    With an example.\n',
    );
    expect((await run('git log --oneline -- src/add.ts')).stdout).toBe('a1b2c3d Add add()\n');
    expect(await run('git log -n many')).toMatchObject({ stderr: "fatal: 'many': not an integer\n", exitCode: 128 });
  });

  it('shows the future commit to log --all and to its ref', async () => {
    const { run } = sandbox();
    expect((await run('git log --all --oneline')).stdout).toBe('c3d4e5f Fix add\nb2c3d4e Document add\na1b2c3d Add add()\n');
    expect((await run('git log --oneline origin/main -1')).stdout).toBe('c3d4e5f Fix add\n');
  });

  it('shows a file at a revision and records it as a read with the revision', async () => {
    const { run } = sandbox();
    const fix = await run('git show origin/main:src/add.ts');
    expect(fix.stdout).toBe('export const add = (a, b) => a + b;\n');
    expect(fix.accesses).toEqual([{ kind: 'read', path: '/src/add.ts', command: 'git', outcome: 'ok', detail: 'git show origin/main:src/add.ts' }]);
    expect((await run('git show HEAD~1:README.md')).stdout).toBe('# Add\n');
    expect((await run('git show c3d4:src/add.ts')).stdout).toContain('a + b');
    expect(await run('git show HEAD:nope.ts')).toMatchObject({ stderr: "fatal: path 'nope.ts' does not exist in 'HEAD'\n", exitCode: 128 });
    expect(await run('git show deadbeef')).toMatchObject({ exitCode: 128 });
    expect(await run('git show HEAD~5')).toMatchObject({ exitCode: 128 });
  });

  it('shows a commit with its diff against its parent', async () => {
    const { run } = sandbox();
    const shown = (await run('git show c3d4e5f')).stdout;
    expect(shown).toContain('commit c3d4e5f60718293a4b5c6d7e8f90123456789012\n');
    expect(shown).toContain('-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n');
  });

  it('diffs and lists the agent’s changes against the base', async () => {
    const { run } = sandbox();
    await run("echo 'export const add = (a, b) => a + b;' > src/add.ts; echo notes > notes.txt; rm README.md");
    expect((await run('git status')).stdout).toBe(' D README.md\n?? notes.txt\n M src/add.ts\n');
    const diff = (await run('git diff src')).stdout;
    expect(diff).toBe(
      'diff --git a/src/add.ts b/src/add.ts\n--- a/src/add.ts\n+++ b/src/add.ts\n@@ -1,1 +1,1 @@\n-export const add = (a, b) => a - b;\n+export const add = (a, b) => a + b;\n',
    );
  });

  it('fails network commands as offline, recording the URL', async () => {
    const { run } = sandbox();
    const clone = await run('git clone https://github.com/owner/add.git');
    expect(clone).toMatchObject({ stderr: "fatal: unable to access 'https://github.com/owner/add.git': Could not resolve host: github.com\n", exitCode: 128 });
    expect(clone.accesses).toEqual([{ kind: 'net', path: 'https://github.com/owner/add.git', command: 'git', outcome: 'ENOHOST' }]);
    expect((await run('git fetch')).stderr).toMatch(/Could not resolve host: github.com/);
  });

  it('says which commands it does not have', async () => {
    const { run } = sandbox();
    expect(await run('git checkout origin/main -- src/add.ts')).toMatchObject({
      stderr: "git: 'checkout' is not available in this sandbox (it has log, show, diff, status)\n",
      exitCode: 1,
    });
    expect(await run('git frob')).toMatchObject({ stderr: "git: 'frob' is not a git command. See 'git --help'.\n", exitCode: 1 });
  });
});
