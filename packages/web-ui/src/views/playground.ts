// Playground: the recipe panel, the transport controls and "copy as CLI command". The controls are
// laid out now and stay disabled, with the reason shown, until the engine worker can train (the
// trainer is issue 5); the command line works today and reproduces the recipe headless.

import { h } from 'preact';
import { useState } from 'preact/hooks';
import { cliCommand } from '../state/url-state.ts';
import { type RecipeChoice, RecipePanel } from './recipe-panel.ts';

export const TRAINING_UNAVAILABLE =
  'Live training in the browser arrives with the trainer (issue 5): these controls will drive it in the engine worker. Until then, run the command below headless and open its run directory as a replay.';

function Transport() {
  const controls = [
    ['▶', 'Play', 'Space'],
    ['❚❚', 'Pause', 'Space'],
    ['▶|', 'Step', '→'],
  ] as const;
  return h(
    'div',
    { class: 'transport', role: 'group', 'aria-label': 'Training controls', 'aria-describedby': 'transport-why' },
    controls.map(([glyph, label, key]) =>
      h('button', { key: label, type: 'button', disabled: true, title: `${label} (${key})` }, h('span', { 'aria-hidden': 'true' }, glyph), ` ${label}`),
    ),
    h('label', { class: 'run-n' }, 'Run ', h('input', { type: 'number', min: 1, value: 10, disabled: true, 'aria-label': 'iterations to run' }), ' iterations'),
    h('button', { type: 'button', disabled: true }, 'Run N'),
    h('button', { type: 'button', disabled: true }, '↺ Reset'),
    h('p', { id: 'transport-why', class: 'note' }, TRAINING_UNAVAILABLE),
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

export function Playground({ choice, onChange }: { choice: RecipeChoice; onChange: (choice: RecipeChoice) => void }) {
  return h(
    'section',
    { class: 'playground', 'aria-label': 'Playground' },
    h(Transport, null),
    h(CopyCommand, { command: cliCommand(choice.recipe, choice.seed, choice.sets) }),
    h(RecipePanel, { choice, onChange }),
  );
}
