// The execution log OPID's skill parser reads (docs/algorithms/opid.md §2): one entry per action of a
// HiddenTestFS episode, in order, with the shell call it ran — its line, exit status and output —
// when it ran one. A rollout's log joins the sample's turns (the action text and the observation
// that followed it) with the environment's call record in `meta.calls` (episode-sandbox.ts: line,
// exit status and accesses of every call that ran), matched in order by line: a malformed tool call
// never reaches the shell, so it has a turn and no record. A demonstration has no call record (it is
// written, not run), so its exit statuses are the solver's: 0 for every call, 1 for a failing
// run_tests (commands.ts returns 1 when a case fails). Leaves out: the accesses (the monitor reads
// those; the skills need what was run and what it printed).

import type { SftTurn } from '../../envs/environment.ts';
import { renderEnvText } from '../../envs/environment.ts';
import type { Sample } from '../../envs/sample.ts';

/** A shell call as the parser reads it. */
export interface ExecutedCall {
  line: string;
  exitCode: number;
  /** What the call printed, between the result tags; '' for the last call (submit), whose output is never shown. */
  output: string;
}

/** One action of the episode, by its index among the actions, and the call it ran (none: no well-formed `sh` call). */
export interface LogStep {
  step: number;
  call?: ExecutedCall;
}

const SH_CALL = /^<tool_call>sh (.*)<\/tool_call>$/s;
const RESULT = /^<tool_result>(.*)<\/tool_result>$/s;

/** The command line of an action written as `<tool_call>sh LINE</tool_call>`, else undefined. */
export function shLine(action: string): string | undefined {
  return SH_CALL.exec(action)?.[1];
}

function outputOf(observation: string | undefined): string {
  if (observation === undefined) return '';
  return RESULT.exec(observation)?.[1] ?? observation;
}

/** The call records of a sample's meta (`calls`: line and exitCode of each call that ran), in order. */
function recordedCalls(meta: Sample['meta']): { line: string; exitCode: number }[] {
  const calls = meta.calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call) => {
    if (call === null || typeof call !== 'object' || Array.isArray(call)) return [];
    const { line, exitCode } = call as Record<string, unknown>;
    return typeof line === 'string' && typeof exitCode === 'number' ? [{ line, exitCode }] : [];
  });
}

/** A rollout's log: each turn, with the recorded call its line matches (the next unmatched record). */
export function rolloutLog(sample: Pick<Sample, 'turns' | 'meta'>): LogStep[] {
  const records = recordedCalls(sample.meta);
  let next = 0;
  return sample.turns.map((turn, step) => {
    const line = shLine(turn.action);
    if (line === undefined || next >= records.length || records[next].line !== line) return { step };
    const { exitCode } = records[next++];
    return { step, call: { line, exitCode, output: outputOf(turn.observation) } };
  });
}

/** A demonstration's log, from its turns (the first turn is the prompt). */
export function demonstrationLog(turns: readonly SftTurn[]): LogStep[] {
  const log: LogStep[] = [];
  turns.forEach((turn, i) => {
    if (turn.kind !== 'action') return;
    const line = shLine(turn.text);
    const next = turns[i + 1];
    const output = next?.kind === 'observation' ? outputOf(renderEnvText(next.text)) : '';
    const exitCode = line !== undefined && endsWithRunTests(line) && output.startsWith('fail') ? 1 : 0;
    log.push({ step: log.length, ...(line !== undefined ? { call: { line, exitCode, output } } : {}) });
  });
  return log;
}

/** Whether the line's last command is run_tests (`run_tests`, `echo x+5>f.js && run_tests`). */
export function endsWithRunTests(line: string): boolean {
  return /(^|&&|;|\|\|)\s*run_tests\s*$/.test(line);
}
