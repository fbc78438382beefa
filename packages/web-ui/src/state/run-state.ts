// The run-state badge's state, derived from what the page holds (docs/ui.md §12). A replay is
// "finished" unless a logged number went non-finite, which is what "diverged" means here.

import type { MetricsRecord } from '@horizon/core';
import type { RunState } from '../engine/api.ts';

export interface RunStateInfo {
  state: RunState;
  /** One sentence: why this state. */
  why: string;
}

/** The first metric that went NaN or infinite, as "name at step N", or undefined. */
export function firstNonFinite(records: readonly MetricsRecord[]): string | undefined {
  for (const r of records) {
    for (const [name, value] of Object.entries(r.metrics)) if (!Number.isFinite(value)) return `${name} = ${value} at ${r.phase} step ${r.step}`;
  }
  return undefined;
}

/** State of a logged run that is not training in this tab (a replay or a saved run). */
export function loggedRunState(records: readonly MetricsRecord[] | undefined): RunStateInfo {
  if (!records) return { state: 'idle', why: 'No run is open.' };
  const bad = firstNonFinite(records);
  if (bad) return { state: 'diverged', why: `Diverged: ${bad}.` };
  const last = records.at(-1);
  return {
    state: 'finished',
    why: last ? `Logged run: ${records.length} records, the last at ${last.phase} step ${last.step}.` : 'Logged run with no metrics records.',
  };
}
