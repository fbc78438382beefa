// Pieces the RL walkthroughs share (docs/ui.md §10): a labelled range slider whose value is printed
// next to it, a toggle-button group, the line that names the device (and says "recomputing…" while
// the shown numbers answer an older request), and the hook that sends each control position to the
// worker, latest position wins (state/latest.ts), as the GAE walkthrough does, and the hook that
// keeps a walkthrough's controls in the URL (state/walk-url.ts). KaTeX rendering is tex.ts's, apart,
// so the labs, which import these pieces but draw no equations, do not load KaTeX's 259 kB.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { EngineHandle } from '../engine/client.ts';
import type { Computed, WalkAnswer, WalkAnswers, WalkKind, WalkRequest } from '../engine/walk-api.ts';
import { LatestOnly } from '../state/latest.ts';
import { readWalk, writeWalk } from '../state/walk-url.ts';

export function RangeSlider(props: {
  name: string;
  label: string;
  value: number;
  min: number;
  max: number;
  step: number;
  digits?: number;
  help: string;
  onChange: (v: number) => void;
}) {
  return h(
    'label',
    { class: 'slider' },
    h('span', { class: 'slider-label' }, `${props.label} = `, h('output', { 'data-testid': `${props.name}-value` }, props.value.toFixed(props.digits ?? 2))),
    h('input', {
      type: 'range',
      name: props.name,
      min: props.min,
      max: props.max,
      step: props.step,
      value: props.value,
      'aria-label': props.label,
      onInput: (e: Event) => props.onChange(Number((e.target as HTMLInputElement).value)),
    }),
    h('span', { class: 'slider-help' }, props.help),
  );
}

/** Buttons of which exactly one is pressed (aria-pressed), in a labelled group. */
export function Choice(props: { label: string; value: number; options: readonly { value: number; text: string }[]; onChange: (v: number) => void }) {
  return h(
    'div',
    { class: 'presets', role: 'group', 'aria-label': props.label },
    props.options.map((o) =>
      h('button', { key: String(o.value), type: 'button', 'aria-pressed': props.value === o.value, onClick: () => props.onChange(o.value) }, o.text),
    ),
  );
}

/** "Computed by the … kernel (WGSL) on <device> in N ms", or the CPU reference's line. */
export function DeviceLine({ answer, kernel, stale, testId }: { answer: Computed | null; kernel: string; stale: boolean; testId: string }) {
  return h(
    'p',
    { class: `device-line${stale ? ' stale' : ''}`, 'data-testid': testId, 'data-computed-on': answer?.computedOn ?? '' },
    answer
      ? `${answer.computedOn === 'gpu' ? `Computed by the ${kernel} kernel (WGSL) on` : 'Computed by'} ${answer.deviceLine} in ${answer.millis.toFixed(1)} ms${stale ? ' — recomputing…' : ''}`
      : 'Starting the GPU in the worker…',
  );
}

/**
 * The answer to `request` from the worker, recomputed whenever it changes (compared as JSON, so a
 * request rebuilt with the same values does not go out again); `stale` while the shown answer is
 * for an older request.
 */
export function useWalk<K extends WalkKind>(engine: EngineHandle, request: Extract<WalkRequest, { kind: K }>) {
  const [answer, setAnswer] = useState<WalkAnswers[K] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: Extract<WalkRequest, { kind: K }>) => (engine.walkthrough as (request: WalkRequest) => Promise<WalkAnswer>)(r) as Promise<WalkAnswers[K]>,
        (a: WalkAnswers[K]) => {
          setError(null);
          setAnswer(a);
        },
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  const key = JSON.stringify(request);
  useEffect(() => queue.request(request), [queue, key]);
  const stale = answer !== null && JSON.stringify(answer.request) !== key;
  return { answer, error, stale };
}

/** The error line, when the worker refused or failed. */
export const ErrorLine = ({ error }: { error: string | null }) => (error ? h('p', { class: 'error', role: 'alert' }, error) : null);

/** The URL's walkthrough settings and how to replace them (app.ts writes them with replaceState). */
export interface WalkUrl {
  walk: string | undefined;
  onWalk: (walk: string) => void;
}

/**
 * A walkthrough's request, starting from the URL's settings for its kind (or `defaults`), and a
 * setter that also writes it to the URL; `problem` says why the URL's settings were not used.
 */
export function useUrlRequest<R extends WalkRequest>(url: WalkUrl, defaults: R): [R, (next: R) => void, string | null] {
  const [initial] = useState(() => readWalk(url.walk, defaults));
  const [request, setRequest] = useState<R>(initial.request);
  const set = (next: R) => {
    setRequest(next);
    url.onWalk(writeWalk(url.walk, next));
  };
  return [request, set, initial.problem];
}
