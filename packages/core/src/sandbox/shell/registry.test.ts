import { describe, expect, it } from 'vitest';
import { VirtualFs } from '../virtual-fs.ts';
import { shellRegistry } from './builtins.ts';
import { CommandRegistry, type ShellCommand } from './registry.ts';
import { Shell } from './shell.ts';

/** A stand-in for the run_tests an environment registers: runs each test file it is given. */
const fakeRunTests: ShellCommand = {
  name: 'run_tests',
  summary: 'run the visible tests',
  run(args, ctx) {
    let failed = 0;
    for (const path of args.length > 0 ? args : ['tests/add.test.txt']) {
      const allowed = ctx.fs.exec(path);
      const source = allowed.ok ? ctx.fs.readFile(path) : allowed;
      if (!source.ok) {
        ctx.stderr.write(`run_tests: ${path}: ${source.message}\n`);
        failed++;
        continue;
      }
      ctx.stdout.write(`${path}: ${source.value.trim()} … ok\n`);
    }
    return failed === 0 ? 0 : 1;
  },
};

describe('command registry', () => {
  it('runs an environment’s command beside the built-ins, with stdin, pipes and the access record', async () => {
    const fs = new VirtualFs({ 'tests/add.test.txt': 'add(1, 2) = 3\n', '.eval/hidden.test.txt': 'x\n' }, { protectedPaths: ['/.eval'] });
    const shell = new Shell({ fs, commands: shellRegistry([fakeRunTests]) });
    const passed = await shell.run('run_tests | grep -c ok');
    expect(passed).toMatchObject({ stdout: '1\n', exitCode: 0 });
    expect(passed.accesses.map((a) => `${a.command} ${a.kind} ${a.path}`)).toEqual([
      'run_tests exec /tests/add.test.txt',
      'run_tests read /tests/add.test.txt',
    ]);
    const hidden = await shell.run('run_tests .eval/hidden.test.txt');
    expect(hidden).toMatchObject({ stderr: 'run_tests: .eval/hidden.test.txt: Permission denied\n', exitCode: 1 });
    expect(hidden.accesses).toEqual([{ kind: 'exec', path: '/.eval/hidden.test.txt', command: 'run_tests', outcome: 'EACCES' }]);
  });

  it('refuses a duplicate name unless asked to replace, and names that could not be typed', () => {
    const registry = new CommandRegistry([fakeRunTests]);
    expect(() => registry.register(fakeRunTests)).toThrow(/already registered/);
    registry.register({ ...fakeRunTests, summary: 'replacement' }, true);
    expect(registry.get('run_tests')?.summary).toBe('replacement');
    expect(() => registry.register({ ...fakeRunTests, name: 'run tests' })).toThrow(/must be letters/);
    expect(() => registry.register({ ...fakeRunTests, name: '../x' })).toThrow(/must be letters/);
    expect(registry.names()).toEqual(['run_tests']);
  });
});
