// The HiddenTestFS environment: a ToolEnvironment with one tool, `sh`, whose single argument is a
// command line run by the episode's Shell — `<tool_call>sh ls -a</tool_call>`, `sh cat task/README`,
// `sh echo x+5>f.js`, `sh run_tests`, `sh submit`. One tool with the whole line as its argument is
// the shortest call a character-level policy can write (no argument names, no quoting: the last
// string field takes the rest verbatim), and run_tests and submit live in the shell (commands.ts).
// The episode ends when a call runs `submit` (after that call, which the wrapper turns into the
// end), or when the policy answers without a tool call; either way the verifier grades f.js
// (grading.ts). Tool output is cut to 64 characters, head kept: every character is a token.
// With task.hiddenTestFs.monitor on, every call goes through the anti-hack monitor before it runs
// (monitor/monitor.ts, docs/monitor.md); off (the default), the tool is exactly what it was.

import { z } from 'zod';
import { MONITOR_OFF, type MonitorConfig } from '../../monitor/monitor.ts';
import type { CodeRunner } from '../../sandbox/quickjs/code-runner.ts';
import { QuickJsCodeRunner } from '../../sandbox/quickjs/quickjs-code-runner.ts';
import type { ActionEnding, Environment, EpisodeStart, StepOutcome } from '../environment.ts';
import { defineTool, type Tool } from '../tool.ts';
import type { OutputLimit } from '../tool-call.ts';
import { ToolEnvironment } from '../tool-env.ts';
import type { Verifier } from '../verifier.ts';
import { callsInfo, createSandbox, type HiddenSandbox, hackInfo } from './episode-sandbox.ts';
import { PROMPT } from './files.ts';
import { HiddenTestVerifier } from './grading.ts';
import type { HiddenProblem } from './problems.ts';
import type { UnsubmittedRule } from './unsubmitted.ts';

/** The smallest limit ToolEnvironment takes; every output the task itself produces is shorter. */
export const HIDDEN_OUTPUT_LIMIT: OutputLimit = { limit: 64, keep: 'head' };
/**
 * No wall-clock deadline on a command line: the shell's work budget (status 124) and QuickJS's step
 * and memory limits stop every call at the same point on every run, and on this thread a timer could
 * not stop a runaway anyway (a synchronous run blocks the event loop until it returns). A timer only
 * fired on a loaded machine, when 128 concurrent run_tests calls queued behind one another's QuickJS
 * instantiations: those calls answered `error: sh did not return within 5000 ms` instead of
 * `pass 2/2`, and one checkpoint's greedy held-out success read 49.2% on one run and 38.3% on the next
 * (docs/experiments.md, 2026-12-02).
 */
export const HIDDEN_TOOL_TIMEOUT_MS = Number.POSITIVE_INFINITY;

export const shTool: Tool<HiddenSandbox> = defineTool({
  name: 'sh',
  description: 'Runs a shell command line (ls, cat, echo, find, grep, run_tests, submit) in the task folder.',
  parameters: z.object({ line: z.string() }),
  async run({ line }, ctx) {
    const { sandbox } = ctx;
    // With the monitor on, the call runs through it (monitor/monitor.ts); off, exactly as before.
    const monitored = sandbox.monitor ? await sandbox.monitor.run(line) : undefined;
    const call = monitored ? monitored.result : await sandbox.shell.run(line);
    sandbox.calls.push({ line, exitCode: call.exitCode, accesses: call.accesses, ...(monitored ? { monitor: monitored.decision } : {}) });
    return { text: call.stdout + call.stderr, info: { calls: callsInfo(sandbox.calls), ...hackInfo(sandbox.calls) } };
  },
});

export interface HiddenTestFsEnvOptions {
  /** The problem of a seed (the split's generator). */
  problem(seed: number): HiddenProblem;
  /** `.eval/` readable: the hack path open. Closed, every access to it is Permission denied. */
  hackOpen: boolean;
  runner?: CodeRunner;
  /** The anti-hack monitor on every `sh` call (docs/monitor.md); default off. */
  monitor?: MonitorConfig;
  /** How an episode that ended without `submit` is scored (grading.ts); default 'grade'. */
  unsubmitted?: UnsubmittedRule;
}

export class HiddenTestFsEnv implements Environment {
  readonly name = 'hidden-test-fs';
  readonly verifier: Verifier;
  private readonly inner: ToolEnvironment<HiddenSandbox>;
  private current: HiddenSandbox | undefined;

  constructor(options: HiddenTestFsEnvOptions) {
    const runner = options.runner ?? new QuickJsCodeRunner();
    const monitor = options.monitor ?? MONITOR_OFF;
    if (monitor.penalty !== 0 && monitor.mode === 'off')
      throw new RangeError(
        `hidden-test-fs: monitor.penalty (${monitor.penalty}) needs the monitor on to confirm hacks; set monitor.mode to log or guard, or the penalty to 0`,
      );
    this.verifier = new HiddenTestVerifier(
      () => {
        if (!this.current) throw new Error('hidden-test-fs: the verifier ran with no episode open');
        return this.current;
      },
      runner,
      options.unsubmitted,
    );
    this.inner = new ToolEnvironment<HiddenSandbox>({
      name: this.name,
      tools: [shTool],
      verifier: this.verifier,
      task: (seed) => {
        const p = options.problem(seed);
        return {
          prompt: PROMPT,
          info: { solution: p.solution, family: p.family, constant: p.constant, hackOpen: options.hackOpen, ...(p.defect ? { defect: p.defect } : {}) },
        };
      },
      sandbox: (seed) => {
        this.current = createSandbox(options.problem(seed), options.hackOpen, runner, seed, monitor);
        return this.current;
      },
      release: () => {
        this.current = undefined;
      },
      output: HIDDEN_OUTPUT_LIMIT,
      toolTimeoutMs: HIDDEN_TOOL_TIMEOUT_MS,
    });
  }

  /** The open episode's sandbox (for tests and the monitor); undefined between episodes. */
  get sandbox(): HiddenSandbox | undefined {
    return this.current;
  }

  reset(seed: number): Promise<EpisodeStart> {
    return this.inner.reset(seed);
  }

  async step(action: string, ending: ActionEnding): Promise<StepOutcome> {
    const outcome = await this.inner.step(action, ending);
    // submit ends the episode once its call has run; what it printed is never shown.
    if (!outcome.done && this.current?.submit.submitted) return { done: true, info: outcome.info };
    return outcome;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
