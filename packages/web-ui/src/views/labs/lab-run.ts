// A lab's live run (docs/ui.md §23–24): the lab's preset, shrunk by its overrides and the link's
// ?set= fields, trained by core's Trainer in the engine worker exactly as the playground's runs are
// (engine.startTraining, live-run.ts), with the rows and rollouts batched back to the page. The
// run's state lives in this module, not in the view, so leaving the lab for another tab and coming
// back finds the run where it is; the worker keeps one live run, so starting a lab's replaces any
// other (its saved rows stay in IndexedDB, as Reset leaves them).

import type { MetricsRecord } from '@horizon/core';
import { proxy } from 'comlink';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { LabKind, ReplaySample, RunPosition, RunState, RunUpdate, TrainingRequest } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import { positionText } from '../../state/run-state.ts';
import { LAB_RUN_EVENT, type LabRunEvent } from './lab-run-event.ts';

export interface LabRun {
  id: string;
  state: RunState;
  position: RunPosition | null;
  records: MetricsRecord[];
  samples: ReplaySample[];
  message?: string;
}

const runs = new Map<string, LabRun>();
const watchers = new Map<string, Set<(run: LabRun | null) => void>>();
/** Watchers of every lab run, for views that compare runs (the GenAC lab's seeds). */
const allWatchers = new Set<() => void>();

function publish(key: string, run: LabRun): void {
  runs.set(key, run);
  for (const watch of watchers.get(key) ?? []) watch(run);
  for (const watch of allWatchers) watch();
  const detail: LabRunEvent = { lab: key.split(':')[0], state: run.state, position: run.position, ...(run.message ? { message: run.message } : {}) };
  dispatchEvent(new CustomEvent(LAB_RUN_EVENT, { detail }));
}

const ended = (state: RunState) => state === 'finished' || state === 'diverged' || state === 'failed' || state === 'interrupted';

/** The lab's run and its transport: `start` trains (a new run when none is live), `pause` stops after the step in flight. */
export function useLabRun(engine: EngineHandle, key: string, request: TrainingRequest, lab?: LabKind) {
  const [run, setRun] = useState<LabRun | null>(() => runs.get(key) ?? null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const set = watchers.get(key) ?? new Set();
    set.add(setRun);
    watchers.set(key, set);
    return () => void set.delete(setRun);
  }, [key]);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const current = runs.get(key);
      if (!current || ended(current.state)) {
        const listener = proxy((u: RunUpdate) => {
          const old = runs.get(key);
          if (!old || old.id !== u.runId) return;
          publish(key, {
            ...old,
            state: u.state,
            position: u.position,
            records: u.records.length ? [...old.records, ...u.records] : old.records,
            samples: u.samples.length ? [...old.samples, ...u.samples] : old.samples,
            ...(u.message ? { message: u.message } : {}),
          });
        });
        const view = await engine.startTraining(request, listener, lab);
        publish(key, { id: view.summary.id, state: 'paused', position: null, records: [], samples: [] });
      }
      await engine.resume();
    } catch (e) {
      setError(String((e as Error)?.message ?? e));
    } finally {
      setBusy(false);
    }
  };
  const pause = async () => {
    try {
      await engine.pause();
    } catch (e) {
      setError(String((e as Error)?.message ?? e));
    }
  };
  return { run, busy, error, start, pause };
}

/** Every lab run of this page whose key starts with `prefix`, by key, kept up to date. */
export function useLabRuns(prefix: string): Map<string, LabRun> {
  const pick = () => new Map([...runs].filter(([key]) => key.startsWith(prefix)));
  const [all, setAll] = useState(pick);
  useEffect(() => {
    const watch = () => setAll(pick());
    allWatchers.add(watch);
    return () => void allWatchers.delete(watch);
  }, [prefix]);
  return all;
}

/** Train / Pause, and where the run is, in words (a status region, so a screen reader hears it change). */
export function LabTransport(props: { run: LabRun | null; busy: boolean; blocked: string | null; onStart: () => void; onPause: () => void; what: string }) {
  const { run, busy, blocked } = props;
  const running = run?.state === 'running';
  const STATE_TEXT: Record<RunState, string> = {
    idle: 'Idle',
    running: 'Training',
    paused: 'Paused',
    finished: 'Finished',
    diverged: 'Diverged',
    failed: 'Failed',
    interrupted: 'Interrupted',
  };
  const where = run ? `${STATE_TEXT[run.state]} (${positionText(run.position)})${run.message ? ` — ${run.message}` : ''}` : `Not started. ${props.what}`;
  return h(
    'div',
    { class: 'lab-transport', role: 'group', 'aria-label': 'training' },
    running
      ? h('button', { type: 'button', class: 'primary', onClick: props.onPause, 'data-testid': 'lab-pause' }, '❚❚ Pause')
      : h(
          'button',
          { type: 'button', class: 'primary', disabled: busy || blocked !== null, onClick: props.onStart, 'data-testid': 'lab-train' },
          run && !ended(run.state) ? '▶ Resume' : '▶ Train',
        ),
    h('span', { class: 'note', role: 'status', 'data-testid': 'lab-status', 'data-state': run?.state ?? 'idle' }, blocked ?? where),
  );
}
