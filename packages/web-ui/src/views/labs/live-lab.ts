// A lab's live runs (docs/ui.md §25–26): each lab trains through the engine's one live run
// (engine.startTraining, as the playground does), under a name of its own (an arm of the anti-hack
// lab), and keeps every run it started on the page, so a finished arm stays on its chart beside the
// next. Starting a run replaces whatever the worker was training (the playground's run or another
// arm's): the replaced run says "interrupted" and keeps its rows.

import type { MetricsRecord } from '@horizon/core';
import { proxy } from 'comlink';
import { h } from 'preact';
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
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

export function useLabRuns(engine: EngineHandle) {
  const [runs, setRuns] = useState<Record<string, LabRun>>({});
  const [active, setActive] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const names = useRef(new Map<string, string>()); // runId → name

  const listener = useMemo(
    () =>
      proxy((u: RunUpdate) => {
        const name = names.current.get(u.runId);
        if (name === undefined) return;
        setRuns((all) => {
          const old = all[name];
          if (!old || old.runId !== u.runId) return all;
          return {
            ...all,
            [name]: {
              ...old,
              state: u.state,
              position: u.position,
              ...(u.message ? { message: u.message } : {}),
              records: u.records.length > 0 ? [...old.records, ...u.records] : old.records,
              samples: u.samples.length > 0 ? [...old.samples, ...u.samples] : old.samples,
            },
          };
        });
      }),
    [],
  );

  /** Starts a fresh run under `name` (replacing the worker's live run) and trains it to the end. */
  const start = useCallback(
    async (name: string, request: TrainingRequest) => {
      setBusy(true);
      setError(null);
      try {
        const run = await engine.startTraining(request, listener);
        names.current.set(run.summary.id, name);
        setRuns((all) => ({ ...all, [name]: { runId: run.summary.id, request, state: 'paused', position: null, records: [], samples: [] } }));
        setActive(name);
        await engine.resume();
      } catch (e) {
        setError(String((e as Error)?.message ?? e));
      } finally {
        setBusy(false);
      }
    },
    [engine, listener],
  );

  /** Pauses the active run after its step in flight; `resume` continues it while it is still the worker's live run. */
  const pause = useCallback(() => engine.pause().catch((e) => setError(String((e as Error)?.message ?? e))), [engine]);
  const resume = useCallback(() => engine.resume().catch((e) => setError(String((e as Error)?.message ?? e))), [engine]);

  return { runs, active, error, busy, start, pause, resume };
}

/** Where a lab run is, in the playground's words; "compiling the kernels…" before its first row. */
export function labPosition(run: LabRun): string {
  return !run.position && run.state === 'running' ? 'compiling the kernels…' : positionText(run.position);
}

/** A sentence with `quoted` spans as code elements: the labs' prose names shell lines and tags. */
export function withCode(text: string) {
  return text.split('`').map((part, i) => (i % 2 === 1 ? h('code', { key: i }, part) : part));
}
