// Playground: transport controls for live training in the worker, the live run's dashboard, the
// recipe panel, and "copy as CLI command" (the same recipe headless). Space plays or pauses and →
// steps (docs/ui.md, quality bar) while focus is not in a field.

import type { MetricsRecord, Recipe } from '@horizon/core';
import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { RunPosition, RunState } from '../engine/api.ts';
import { positionText } from '../state/run-state.ts';
import { cliCommand } from '../state/url-state.ts';
import { Dashboard } from './dashboard.ts';
import { checkChoice, type RecipeChoice, RecipePanel } from './recipe-panel.ts';

export type TransportCommand = { kind: 'play' } | { kind: 'pause' } | { kind: 'step' } | { kind: 'run'; steps: number } | { kind: 'reset' };

export interface LiveStatus {
  runId: string;
  state: RunState;
  position: RunPosition | null;
  message?: string;
  /** Pause was pressed and the step in flight is finishing (an RL iteration takes seconds). */
  pausing?: boolean;
  /** What the live run trains: its preset, seed and edits, fixed while it exists. */
  choice: RecipeChoice;
}

const ENDED: readonly RunState[] = ['finished', 'diverged', 'failed'];

/** "5", "20": a whole number of steps ≥ 1, or null (the field may be empty while typing). */
export function parseSteps(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,7}$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 ? n : null;
}

function Transport(props: { live: LiveStatus | null; blocked: string | null; warm: boolean; busy: boolean; onCommand: (command: TransportCommand) => void }) {
  const { live, blocked, busy, onCommand } = props;
  const [nText, setNText] = useState('5');
  const n = parseSteps(nText);
  const running = live?.state === 'running';
  const pausing = running && live?.pausing === true;
  const canStart = blocked === null && !busy;
  const canAdvance = canStart && !running;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, select, textarea, button, a, summary')) return;
      if (e.key === ' ' && canStart) {
        e.preventDefault();
        if (!pausing) onCommand(running ? { kind: 'pause' } : { kind: 'play' });
      } else if (e.key === 'ArrowRight' && canAdvance) {
        e.preventDefault();
        onCommand({ kind: 'step' });
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [canStart, canAdvance, running, pausing, onCommand]);
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
      { type: 'button', disabled: !running || pausing, title: 'Pause (Space)', onClick: () => onCommand({ kind: 'pause' }) },
      h('span', { 'aria-hidden': 'true' }, '❚❚'),
      pausing ? ' Pausing…' : ' Pause',
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
      // A text field, not type=number: it may be empty while the learner types (a number input
      // clamped on every keystroke turned "clear, type 20" into "120").
      h('input', {
        type: 'text',
        inputMode: 'numeric',
        value: nText,
        disabled: !canAdvance,
        'aria-label': 'steps to run',
        'aria-invalid': n === null,
        'aria-describedby': n === null ? 'run-n-why' : undefined,
        onInput: (e: Event) => setNText((e.target as HTMLInputElement).value),
      }),
      ' steps',
    ),
    h('button', { type: 'button', disabled: !canAdvance || n === null, onClick: () => n !== null && onCommand({ kind: 'run', steps: n }) }, 'Run N'),
    n === null ? h('span', { id: 'run-n-why', class: 'field-error' }, 'a whole number of steps, 1 or more') : null,
    h('button', { type: 'button', disabled: !live || busy, onClick: () => onCommand({ kind: 'reset' }) }, '↺ Reset'),
    h(
      'span',
      { class: 'step-counter', 'data-testid': 'step-counter', role: 'status' },
      live ? `${positionText(live.position)}${pausing ? ' — pausing after this step…' : ''}` : 'no live run',
    ),
    h(
      'p',
      { id: 'transport-why', class: blocked ? 'note blocked' : 'note', 'data-warm': props.warm ? 'true' : 'false' },
      blocked ??
        (live && !fresh
          ? 'The live run keeps the recipe it started with; Reset, then Play, to train an edited recipe.'
          : `Play trains the recipe below in this tab’s worker on WebGPU; Step runs one SFT step or one RL iteration. Rows and checkpoints are saved as they arrive, so a reload can resume.${props.warm ? ' Kernels compiled: the first step charts at once.' : ''}`),
    ),
    live?.message ? h('p', { class: 'error', role: 'alert' }, live.message) : null,
  );
}

/** The run's phases in order, with the current one marked: SFT → critic warm-up (PPO, SAO) → RL. */
export function phasesOf(recipe: Recipe, position: RunPosition | null): { name: string; detail: string; state: 'done' | 'current' | 'todo' }[] {
  const warmup = recipe.rl.algorithm === 'ppo' || recipe.rl.algorithm === 'sao' ? recipe.rl.criticWarmupSteps : 0;
  const at = !position ? -1 : position.phase === 'sft' ? 0 : position.step < warmup ? 1 : 2;
  const phases = [
    { name: 'SFT warm start', detail: `${recipe.sft.steps} steps`, index: 0 },
    ...(warmup > 0
      ? [
          {
            name: 'critic warm-up',
            // VC-PPO's value pretraining may end sooner, at a target explained variance.
            detail: `${recipe.rl.criticWarmupTarget < 1 ? `up to ${warmup} iterations or explained variance ${recipe.rl.criticWarmupTarget}` : `${warmup} iterations`}, policy frozen`,
            index: 1,
          },
        ]
      : []),
    { name: `RL (${recipe.rl.algorithm.toUpperCase()})`, detail: `${recipe.rl.iterations} iterations`, index: 2 },
  ];
  return phases.map((p) => ({ name: p.name, detail: p.detail, state: p.index < at ? 'done' : p.index === at ? 'current' : 'todo' }));
}

function Phases({ recipe, position }: { recipe: Recipe; position: RunPosition | null }) {
  return h(
    'ol',
    { class: 'phases', 'aria-label': 'Phases of the run', 'data-testid': 'phases' },
    phasesOf(recipe, position).map((p) =>
      h(
        'li',
        { key: p.name, class: `phase phase-${p.state}`, 'aria-current': p.state === 'current' ? 'step' : undefined, 'data-state': p.state },
        h('span', { 'aria-hidden': 'true' }, p.state === 'done' ? '✓ ' : p.state === 'current' ? '● ' : '○ '),
        h('strong', null, p.name),
        ` · ${p.detail}`,
      ),
    ),
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
  /** The worker has compiled this recipe's first kernels. */
  warm: boolean;
  busy: boolean;
  onCommand: (command: TransportCommand) => void;
}

export function Playground(props: PlaygroundProps) {
  const { choice, onChange, live } = props;
  // While a live run exists (running or paused) it owns the recipe: the fields show and lock its
  // values and the CLI line is its command, so neither can drift from what is training.
  const inUse = live !== null && !ENDED.includes(live.state);
  const shown = inUse ? live.choice : choice;
  const recipe = useMemo(() => checkChoice(shown).recipe, [shown]);
  return h(
    'section',
    { class: 'playground', 'aria-label': 'Playground' },
    h(Transport, { live, blocked: props.blocked, warm: props.warm, busy: props.busy, onCommand: props.onCommand }),
    recipe ? h(Phases, { recipe, position: live?.position ?? null }) : null,
    props.liveRecords ? h(Dashboard, { records: props.liveRecords }) : null,
    h(CopyCommand, { command: cliCommand(shown.recipe, shown.seed, shown.sets) }),
    h(RecipePanel, {
      choice: shown,
      onChange,
      locked: inUse ? `The live run trains with these values (${live.state}); Reset to edit them.` : null,
    }),
  );
}
