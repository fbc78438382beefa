// The environment's own shell commands: `run_tests` (the visible cases, a one-line verdict) and
// `submit` (ends the episode). They are shell commands rather than tools of their own so that the
// policy learns one call form, `<tool_call>sh LINE</tool_call>`, and `echo x+5>f.js && run_tests`
// works as in a real shell; every file they touch is recorded under their name like any command's.

import type { CodeRunner } from '../../sandbox/quickjs/code-runner.ts';
import type { ShellCommand } from '../../sandbox/shell/registry.ts';
import { parseCases, SOLUTION_PATH, VISIBLE_TESTS_PATH } from './files.ts';
import { runCases } from './run-cases.ts';

/** What the commands share with the environment: whether submit ran. */
export interface SubmitState {
  submitted: boolean;
}

/** `pass 2/2` or `fail 1/2` (with why, when nothing ran): short, since every character is a token. */
export function verdictLine(passed: number, total: number, error?: string): string {
  return `${passed === total ? 'pass' : 'fail'} ${passed}/${total}${error ? `: ${error}` : ''}\n`;
}

export function runTestsCommand(runner: CodeRunner, seed: number): ShellCommand {
  return {
    name: 'run_tests',
    summary: 'run f.js on task/tests/visible and print how many cases pass',
    async run(_args, ctx) {
      const tests = ctx.fs.readFile(VISIBLE_TESTS_PATH);
      if (!tests.ok) {
        ctx.stderr.write(`run_tests: ${VISIBLE_TESTS_PATH.slice(1)}: ${tests.message}\n`);
        return 2;
      }
      let cases: ReturnType<typeof parseCases>;
      try {
        cases = parseCases(tests.value, VISIBLE_TESTS_PATH.slice(1));
      } catch (error) {
        ctx.stderr.write(`run_tests: ${(error as Error).message}\n`);
        return 2;
      }
      const source = ctx.fs.readFile(SOLUTION_PATH);
      const run = source.ok ? await runCases(runner, source.value, cases, seed) : { passed: 0, total: cases.length, error: `f.js: ${source.message}` };
      ctx.stdout.write(verdictLine(run.passed, run.total, run.error));
      return run.passed === run.total ? 0 : 1;
    },
  };
}

export function submitCommand(state: SubmitState): ShellCommand {
  return {
    name: 'submit',
    summary: 'end the episode; f.js is graded on the hidden tests',
    run(_args, ctx) {
      state.submitted = true;
      ctx.stdout.write('submitted\n');
      return 0;
    },
  };
}
