// A lab's live runs (docs/ui.md §25–26): each lab trains through the engine's one live run
// (engine.startTraining, as the playground does), under a name of its own (an arm of the anti-hack
// lab), and keeps every run it started for the page's life, so a finished arm stays on its chart
// beside the next and a lab left for another tab finds its runs on the way back. Starting a run replaces whatever the worker was training (the playground's run or another
// arm's): the replaced run says "interrupted" and keeps its rows.

import type { MetricsRecord } from '@horizon/core';
import { proxy } from 'comlink';
import { h } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { ReplaySample, RunPosition, RunState, RunUpdate, TrainingRequest } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import { positionText } from '../../state/run-state.ts';

export interface LabRun {
  runId: string;
  request: TrainingRequest;
  state: RunState;
  position: RunPosition | null;
  message?: string;
  records: MetricsRecord[];
  samples: ReplaySample[];
}

/**
 * One lab's runs, kept outside its component: the page unmounts a view when the learner opens
 * another tab, and the runs (and the worker's updates to them) must still be there on the way back.
 */
class LabStore {
  runs: Record<string, LabRun> = {};
  active: string | null = null;
  private readonly names = new Map<string, string>(); // runId → name
  private readonly subscribers = new Set<() => void>();
  readonly listener = proxy((u: RunUpdate) => {
    const name = this.names.get(u.runId);
    const old = name === undefined ? undefined : this.runs[name];
    if (name === undefined || !old || old.runId !== u.runId) return;
    this.runs = {
      ...this.runs,
      [name]: {
        ...old,
        state: u.state,
        position: u.position,
        ...(u.message ? { message: u.message } : {}),
        records: u.records.length > 0 ? [...old.records, ...u.records] : old.records,
        samples: u.samples.length > 0 ? [...old.samples, ...u.samples] : old.samples,
      },
    };
    this.changed();
  });

  add(name: string, runId: string, request: TrainingRequest): void {
    this.names.set(runId, name);
    this.runs = { ...this.runs, [name]: { runId, request, state: 'paused', position: null, records: [], samples: [] } };
    this.active = name;
    this.changed();
  }

  subscribe(f: () => void): () => void {
    this.subscribers.add(f);
    return () => this.subscribers.delete(f);
  }

  private changed(): void {
    for (const f of this.subscribers) f();
  }
}

const stores = new Map<string, LabStore>();

/** Lab `lab`'s runs (one store per lab for the page's life) and how to start, pause and resume them. */
export function useLabRuns(engine: EngineHandle, lab: string) {
  const store = useMemo(() => {
    const s = stores.get(lab) ?? new LabStore();
    stores.set(lab, s);
    return s;
  }, [lab]);
  const [, redraw] = useState(0);
  useEffect(() => store.subscribe(() => redraw((n) => n + 1)), [store]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  /** Starts a fresh run under `name` (replacing the worker's live run) and trains it to the end. */
  const start = useCallback(
    async (name: string, request: TrainingRequest) => {
      setBusy(true);
      setError(null);
      try {
        const run = await engine.startTraining(request, store.listener);
        store.add(name, run.summary.id, request);
        await engine.resume();
      } catch (e) {
        setError(String((e as Error)?.message ?? e));
      } finally {
        setBusy(false);
      }
    },
    [engine, store],
  );

  /** Pauses the active run after its step in flight; `resume` continues it while it is still the worker's live run. */
  const pause = useCallback(() => engine.pause().catch((e) => setError(String((e as Error)?.message ?? e))), [engine]);
  const resume = useCallback(() => engine.resume().catch((e) => setError(String((e as Error)?.message ?? e))), [engine]);

  return { runs: store.runs, active: store.active, error, busy, start, pause, resume };
}

/** Where a lab run is, in the playground's words; "compiling the kernels…" before its first row. */
export function labPosition(run: LabRun): string {
  return !run.position && run.state === 'running' ? 'compiling the kernels…' : positionText(run.position);
}

/** A sentence with `quoted` spans as code elements: the labs' prose names shell lines and tags. */
export function withCode(text: string) {
  return text.split('`').map((part, i) => (i % 2 === 1 ? h('code', { key: i }, part) : part));
}
