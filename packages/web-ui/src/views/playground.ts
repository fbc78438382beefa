// Playground: transport controls for live training in the worker, the live run's dashboard, the
// recipe panel, and "copy as CLI command" (the same recipe headless). Space plays or pauses and →
// steps (docs/ui.md, quality bar) while focus is not in a field.

import type { MetricsRecord } from '@horizon/core';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RunPosition, RunState } from '../engine/api.ts';
import { cliCommand } from '../state/url-state.ts';
import { Dashboard } from './dashboard.ts';
import { type RecipeChoice, RecipePanel } from './recipe-panel.ts';

export type TransportCommand = { kind: 'play' } | { kind: 'pause' } | { kind: 'step' } | { kind: 'run'; steps: number } | { kind: 'reset' };

export interface LiveStatus {
  runId: string;
  state: RunState;
  position: RunPosition | null;
  message?: string;
}

const ENDED: readonly RunState[] = ['finished', 'diverged', 'failed'];

/** "SFT step 3 of 20", "RL iteration 2 of 4", "evaluated after iteration 2". */
export function positionText(position: RunPosition | null): string {
  if (!position) return 'not started';
  if (position.phase === 'sft') return `SFT step ${position.step} of ${position.total}`;
  if (position.phase === 'rl') return `RL iteration ${position.step} of ${position.total}`;
  return position.step === 0 ? 'evaluated after SFT' : `evaluated after iteration ${position.step}`;
}

function Transport(props: { live: LiveStatus | null; blocked: string | null; busy: boolean; onCommand: (command: TransportCommand) => void }) {
  const { live, blocked, busy, onCommand } = props;
  const [n, setN] = useState(5);
  const running = live?.state === 'running';
  const canStart = blocked === null && !busy;
  const canAdvance = canStart && !running;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, select, textarea, button, a, summary')) return;
      if (e.key === ' ' && canStart) {
        e.preventDefault();
        onCommand(running ? { kind: 'pause' } : { kind: 'play' });
      } else if (e.key === 'ArrowRight' && canAdvance) {
        e.preventDefault();
        onCommand({ kind: 'step' });
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [canStart, canAdvance, running, onCommand]);
  const fresh = !live || ENDED.includes(live.state);
  return h(
    'div',
    { class: 'transport', role: 'group', 'aria-label': 'Training controls', 'aria-describedby': 'transport-why' },
    h(
      'button',
      { type: 'button', disabled: !canAdvance, title: 'Play (Space)', onClick: () => onCommand({ kind: 'play' }) },
      h('span', { 'aria-hidden': 'true' }, '▶'),
      fresh ? ' Play' : ' Resume',
    ),
    h(
      'button',
      { type: 'button', disabled: !running, title: 'Pause (Space)', onClick: () => onCommand({ kind: 'pause' }) },
      h('span', { 'aria-hidden': 'true' }, '❚❚'),
      ' Pause',
    ),
    h(
      'button',
      { type: 'button', disabled: !canAdvance, title: 'Step: one SFT step or one RL iteration (→)', onClick: () => onCommand({ kind: 'step' }) },
      h('span', { 'aria-hidden': 'true' }, '▶|'),
      ' Step',
    ),
    h(
      'label',
      { class: 'run-n' },
      'Run ',
      h('input', {
        type: 'number',
        min: 1,
        value: n,
        disabled: !canAdvance,
        'aria-label': 'steps to run',
        onInput: (e: Event) => setN(Math.max(1, Math.floor(Number((e.target as HTMLInputElement).value) || 1))),
      }),
      ' steps',
    ),
    h('button', { type: 'button', disabled: !canAdvance, onClick: () => onCommand({ kind: 'run', steps: n }) }, 'Run N'),
    h('button', { type: 'button', disabled: !live || busy, onClick: () => onCommand({ kind: 'reset' }) }, '↺ Reset'),
    h('span', { class: 'step-counter', 'data-testid': 'step-counter', role: 'status' }, live ? positionText(live.position) : 'no live run'),
    h(
      'p',
      { id: 'transport-why', class: blocked ? 'note blocked' : 'note' },
      blocked ??
        (live && !fresh
          ? 'The live run keeps the recipe it started with; Reset, then Play, to train an edited recipe.'
          : 'Play trains the recipe below in this tab’s worker on WebGPU; Step runs one SFT step or one RL iteration. Rows are saved as they arrive, so a reload keeps them.'),
    ),
    live?.message ? h('p', { class: 'error', role: 'alert' }, live.message) : null,
  );
}

function CopyCommand({ command }: { command: string }) {
  const [status, setStatus] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(command).then(
      () => setStatus('copied'),
      (error: unknown) => setStatus(`could not copy (${(error as Error).message}); select the text instead`),
    );
  return h(
    'div',
    { class: 'cli' },
    h('code', { 'data-testid': 'cli-command' }, command),
    h('button', { type: 'button', onClick: copy }, 'Copy as CLI command'),
    status ? h('span', { class: 'note', role: 'status' }, status) : null,
  );
}

export interface PlaygroundProps {
  choice: RecipeChoice;
  onChange: (choice: RecipeChoice) => void;
  live: LiveStatus | null;
  /** Rows of the live run, when it is the run on screen. */
  liveRecords: readonly MetricsRecord[] | null;
  /** Why the controls are disabled (no WebGPU, an invalid recipe), or null. */
  blocked: string | null;
  busy: boolean;
  onCommand: (command: TransportCommand) => void;
}

export function Playground(props: PlaygroundProps) {
  const { choice, onChange } = props;
  return h(
    'section',
    { class: 'playground', 'aria-label': 'Playground' },
    h(Transport, { live: props.live, blocked: props.blocked, busy: props.busy, onCommand: props.onCommand }),
    props.liveRecords ? h(Dashboard, { records: props.liveRecords }) : null,
    h(CopyCommand, { command: cliCommand(choice.recipe, choice.seed, choice.sets) }),
    h(RecipePanel, { choice, onChange }),
  );
}
