// HiddenTestFS's `sh` has no wall-clock deadline: its calls are bounded by the shell's work budget and
// QuickJS's step and memory limits, which stop at the same point on every run. A run_tests call that
// waits long for its code runner — as 128 concurrent calls did on a loaded machine, queued behind one
// another's QuickJS instantiations — still answers with the tests' verdict, never with a timeout
// error that the next run, on a quieter machine, would not show. Fake timers stand in for the wait:
// a minute passes while the runner holds the call.

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CodeRequest, CodeResult, CodeRunner } from '../../sandbox/quickjs/code-runner.ts';
import { QuickJsCodeRunner } from '../../sandbox/quickjs/quickjs-code-runner.ts';
import { HiddenTestFsEnv } from './env.ts';
import { hiddenProblem } from './problems.ts';
import { shAction } from './solver.ts';

/** The real runner behind a gate the test opens. */
class HeldRunner implements CodeRunner {
  private readonly inner = new QuickJsCodeRunner();
  private open: () => void = () => {};
  readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  held = 0;
  release(): void {
    this.open();
  }
  async run(request: CodeRequest): Promise<CodeResult> {
    this.held++;
    await this.gate;
    return this.inner.run(request);
  }
}

const text = (observation: unknown) =>
  typeof observation === 'string' ? observation : (observation as (string | object)[]).filter((p) => typeof p === 'string').join('');

afterEach(() => {
  vi.useRealTimers();
});

describe("HiddenTestFS's sh tool under a slow code runner", () => {
  it('answers run_tests with its verdict after a minute of waiting, not with a timeout', async () => {
    const runner = new HeldRunner();
    const env = new HiddenTestFsEnv({ problem: (s) => hiddenProblem(s, { minConstant: 1, maxConstant: 9 }), hackOpen: false, runner });
    const seed = 7;
    await env.reset(seed);
    const solution = hiddenProblem(seed, { minConstant: 1, maxConstant: 9 }).solution;
    await env.step(shAction(`echo ${solution}>f.js`), 'stop');
    vi.useFakeTimers();
    const pending = env.step(shAction('run_tests'), 'stop');
    await vi.waitFor(() => expect(runner.held).toBe(1));
    await vi.advanceTimersByTimeAsync(60_000);
    runner.release();
    vi.useRealTimers();
    const outcome = await pending;
    expect(outcome.done).toBe(false);
    expect(text(outcome.done ? '' : outcome.observation)).toBe('pass 2/2\n');
    await env.close();
  });
});
