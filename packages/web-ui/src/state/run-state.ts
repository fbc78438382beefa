// The run-state badge's state, derived from what the page holds (docs/ui.md §12). A live run says
// its own state; a saved live run that was still training when the page went away is
// "interrupted" at its last row, resumable from its checkpoint; a log that ends before its
// recipe's last iteration is "interrupted" too, and a logged NaN is "diverged".

import type { MetricsRecord } from '@horizon/core';
import type { RunPosition, RunState, RunSummary } from '../engine/api.ts';

export interface RunStateInfo {
  state: RunState;
  /** One sentence: why this state. */
  why: string;
}

/** "SFT step 3 of 20", "RL iteration 2 of 4", "evaluated after iteration 2". */
export function positionText(position: RunPosition | null | undefined): string {
  if (!position) return 'not started';
  if (position.phase === 'sft') return `SFT step ${position.step} of ${position.total}`;
  if (position.phase === 'rl') return `RL iteration ${position.step} of ${position.total}`;
  return position.step === 0 ? 'evaluated after SFT' : `evaluated after iteration ${position.step}`;
}

/** The first metric that went NaN or infinite, as "name at step N", or undefined. */
export function firstNonFinite(records: readonly MetricsRecord[]): string | undefined {
  for (const r of records) {
    for (const [name, value] of Object.entries(r.metrics)) if (!Number.isFinite(value)) return `${name} = ${value} at ${r.phase} step ${r.step}`;
  }
  return undefined;
}

const ENDED: readonly RunState[] = ['finished', 'diverged', 'failed'];

const numberAt = (recipe: Record<string, unknown> | undefined, section: string, key: string): number | undefined => {
  const v = (recipe?.[section] as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'number' ? v : undefined;
};

/** Where a log stops, as a position (the last SFT or RL row; an eval row counts as its iteration). */
export function lastPosition(records: readonly MetricsRecord[], recipe?: Record<string, unknown>): RunPosition | null {
  const last = records.at(-1);
  if (!last) return null;
  const total = last.phase === 'sft' ? numberAt(recipe, 'sft', 'steps') : numberAt(recipe, 'rl', 'iterations');
  return { phase: last.phase, step: last.step, total: total ?? last.step };
}

/** Whether a log reached its recipe's end: the final RL iteration (and, if logged, its evaluation). */
export function reachedEnd(records: readonly MetricsRecord[], recipe?: Record<string, unknown>): boolean {
  const iterations = numberAt(recipe, 'rl', 'iterations');
  if (iterations === undefined) return true; // nothing to compare with: trust the log
  return records.some((r) => (r.phase === 'rl' || r.phase === 'eval') && r.step >= iterations);
}

/** State of a logged run that is not training in this tab (a replay or a saved run). */
export function loggedRunState(records: readonly MetricsRecord[] | undefined, summary?: RunSummary, recipe?: Record<string, unknown>): RunStateInfo {
  if (!records) return { state: 'idle', why: 'No run is open.' };
  const bad = firstNonFinite(records);
  if (bad) return { state: 'diverged', why: `Diverged: ${bad}.` };
  const progress = summary?.progress;
  if (progress && ENDED.includes(progress.state)) return { state: progress.state, why: progress.message ?? `Trained in this browser: ${progress.state}.` };
  const at = positionText(progress?.position ?? lastPosition(records, recipe));
  if (progress) {
    const from = progress.checkpoint
      ? `Resume continues from its checkpoint at ${positionText(progress.checkpoint)}.`
      : 'It has no checkpoint yet: Resume starts it over.';
    const why = progress.message ?? 'The page was reloaded or closed while it trained.';
    return { state: 'interrupted', why: `Stopped at ${at}. ${why} ${from}` };
  }
  const last = records.at(-1);
  if (summary?.tornTail) return { state: 'interrupted', why: `The log's last line was cut off: the run stopped while writing it, after ${at}.` };
  if (!reachedEnd(records, recipe))
    return { state: 'interrupted', why: `The log stops at ${at}, before the recipe's end: the run was stopped or is still being written.` };
  return {
    state: 'finished',
    why: last ? `Logged run: ${records.length} records, the last at ${last.phase} step ${last.step}.` : 'Logged run with no metrics records.',
  };
}
