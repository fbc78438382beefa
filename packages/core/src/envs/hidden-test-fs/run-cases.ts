// Runs the agent's expression on cases in QuickJS: f.js holds an expression in x ("x+5"), run as
// `const f = x => (<expression>);` with the code runner's `call` entry, one case per input. Used by
// run_tests (the visible cases, during the episode) and by the verifier (hidden and visible cases,
// in the grading copy). The agent's text only ever reaches the VM; the expected outputs stay on the
// host and are compared there, so no case file is loaded into a module that runs agent code
// (docs/sandbox-code-runner.md, "What it leaves out").
//
// The runner is the in-process QuickJsCodeRunner: an expression a character-level policy writes is
// a few characters, the step limit stops loops, and a fresh WASM module per run keeps runs apart.
// What it cannot stop on the main thread (a builtin that never polls) needs node-runner's worker.

import type { CodeLimits, CodeRunner } from '../../sandbox/quickjs/code-runner.ts';
import type { Case } from './problems.ts';

/** Room for any expression of a few characters; a loop the agent smuggles in stops at the step limit. */
export const EXPRESSION_LIMITS: CodeLimits = { steps: 10_000, memoryBytes: 32 * 1024 * 1024, stackBytes: 256 * 1024, outputBytes: 1024 };

export interface CaseRun {
  passed: number;
  total: number;
  /** Why nothing could run (an empty file, a syntax error, a limit), in one line; absent when the cases ran. */
  error?: string;
}

/** Runs `expression` as f(x) on every case; a case passes when f returns exactly its expected number. */
export async function runCases(runner: CodeRunner, expression: string, cases: readonly Case[], seed: number): Promise<CaseRun> {
  const total = cases.length;
  const body = expression.trim();
  if (body === '') return { passed: 0, total, error: 'f.js is empty' };
  const result = await runner.run({
    // The newline ends a `//` comment the agent may have left, so it cannot swallow the parenthesis.
    source: `const f = x => (${body}\n);`,
    entry: { kind: 'call', name: 'f', cases: cases.map((c) => [c.x]) },
    limits: EXPRESSION_LIMITS,
    seed,
  });
  const passed = result.outcomes.filter((o, i) => o.ok && o.value === cases[i].y).length;
  if (result.status !== 'ok' && result.outcomes.length === 0) return { passed, total, error: result.message ?? result.status };
  return { passed, total };
}
