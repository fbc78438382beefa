// GAE walkthrough (docs/ui.md §2): one tool-using trajectory with rows rₜ, Vₜ, δₜ, Aₜ and R̂ₜ; γ and λ
// sliders send each position to the GAE kernel in the worker (latest position wins while one is
// computing), and every number on screen is the kernel's answer. Presets snap λ to values a drag
// cannot reliably hit (distill post--momentum #35).

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { GaeAnswer, GaeRequest } from '../engine/api.ts';
import type { EngineHandle } from '../engine/client.ts';
import { WALKTHROUGH_TOKENS } from '../engine/trajectory.ts';
import { LatestOnly } from '../state/latest.ts';
import { channelOffset, divergingColor, textOn } from './colors.ts';
import { fmt } from './format.ts';
import { GaeEquations } from './gae-equations.ts';

const PRESETS = [
  { label: 'λ = 0 (TD)', lambda: 0 },
  { label: 'λ = 0.95', lambda: 0.95 },
  { label: 'λ = 1 (Monte Carlo)', lambda: 1 },
];

const ROWS = [
  { key: 'r', label: 'rₜ reward', of: (a: GaeAnswer) => a.rewards, all: true },
  { key: 'V', label: 'Vₜ value', of: (a: GaeAnswer) => a.values, all: true },
  { key: 'delta', label: 'δₜ TD error', of: (a: GaeAnswer) => a.deltas, all: false },
  { key: 'A', label: 'Aₜ advantage', of: (a: GaeAnswer) => a.advantages, all: false },
  { key: 'R', label: 'R̂ₜ return', of: (a: GaeAnswer) => a.returns, all: false },
] as const;

function Slider(props: { name: string; symbol: string; value: number; onChange: (v: number) => void; help: string }) {
  return h(
    'label',
    { class: 'slider', 'data-cell': props.name },
    h('span', { class: 'slider-label' }, `${props.symbol} = `, h('output', { 'data-testid': `${props.name}-value` }, props.value.toFixed(2))),
    h('input', {
      type: 'range',
      name: props.name,
      min: 0,
      max: 1,
      step: 0.01,
      value: props.value,
      'aria-label': props.symbol,
      onInput: (e: Event) => props.onChange(Number((e.target as HTMLInputElement).value)),
    }),
    h('span', { class: 'slider-help' }, props.help),
  );
}

function Lane({ answer, selected, linked, onSelect }: { answer: GaeAnswer; selected: number; linked: string | null; onSelect: (t: number) => void }) {
  const extent = Math.max(1e-6, ...answer.advantages.map(Math.abs));
  const { gamma, lambda, outcome } = answer.request;
  return h(
    'div',
    // The request these numbers answer, for tests and for anyone inspecting the page.
    { class: 'lane-wrap', 'data-gamma': gamma, 'data-lambda': lambda, 'data-outcome': outcome },
    h(
      'table',
      { class: 'lane' },
      h(
        'thead',
        null,
        // Positions: the walkthrough's text says "token 8 … next action token 13", so the table says which is which.
        h(
          'tr',
          { class: 'positions' },
          h('th', { scope: 'row' }, 'position t'),
          WALKTHROUGH_TOKENS.map((_, t) => h('th', { key: t, scope: 'col', 'data-position': t, class: t === selected ? 'selected' : undefined }, String(t))),
        ),
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'token'),
          WALKTHROUGH_TOKENS.map((tok, t) =>
            h(
              'th',
              { key: t, class: `col-${tok.role}${t === selected ? ' selected' : ''}`, 'data-t': t },
              h(
                'button',
                {
                  type: 'button',
                  onClick: () => onSelect(t),
                  'aria-pressed': t === selected,
                  title: `${tok.role} token ${t}`,
                  'aria-label': `token ${t}: ${tok.text} (${tok.role})`,
                },
                tok.text,
              ),
            ),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        ROWS.map((row) =>
          h(
            'tr',
            { key: row.key, 'data-row': row.key },
            h('th', { scope: 'row' }, row.label),
            row.of(answer).map((x, t) => {
              const action = answer.actionMask[t] === 1;
              const cell = `${row.key}-${t}`;
              const cls = `${action ? 'act' : 'skip'}${t === selected ? ' selected' : ''}${linked === cell ? ' linked' : ''}`;
              if (!action && !row.all) return h('td', { key: t, class: cls, title: 'skipped: not an action token' }, '·');
              const style =
                row.key === 'A' && action ? { background: divergingColor(channelOffset('advantage', x) / extent), color: textOn(x / extent) } : undefined;
              const title = !action && row.key === 'V' ? 'never read: the kernel links action tokens past this one' : undefined;
              return h('td', { key: t, class: cls, 'data-cell': cell, 'data-value': String(x), style, title }, fmt(x, 3));
            }),
          ),
        ),
      ),
    ),
  );
}

export function GaeWalkthrough({ engine }: { engine: EngineHandle }) {
  const [request, setRequest] = useState<GaeRequest>({ gamma: 1, lambda: 0.95, outcome: 1 });
  const [answer, setAnswer] = useState<GaeAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(8);
  const [linked, setLinked] = useState<string | null>(null);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: GaeRequest) => engine.gae(r),
        setAnswer,
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  useEffect(() => queue.request(request), [queue, request]);
  const update = (patch: Partial<GaeRequest>) => setRequest({ ...request, ...patch });
  const stale =
    answer !== null && (answer.request.gamma !== request.gamma || answer.request.lambda !== request.lambda || answer.request.outcome !== request.outcome);

  return h(
    'section',
    { class: 'gae', 'aria-label': 'GAE walkthrough' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'One episode of a tool-using policy: it is asked ',
        h('code', null, '9+8='),
        ', calls a calculator, reads the result and answers. ',
        "Generalised Advantage Estimation turns the one reward at the end and the critic's guesses Vₜ into a per-token advantage Aₜ: how much better this token turned out than the critic expected.",
      ),
      h(
        'p',
        null,
        'λ blends two estimates. At λ = 0 (TD) a token only sees the one-step surprise δₜ: low variance, but it trusts the critic. At λ = 1 (Monte Carlo) it sums all later surprises, which telescopes to the actual return minus Vₜ: unbiased, but noisy. γ discounts reward that comes later.',
      ),
      h(
        'p',
        null,
        "The grey tokens were not written by the policy: the prompt, and the calculator's answer. The kernel skips them, linking ",
        h('code', null, '</tool_call>'),
        ' straight to the next action token (SAO, eqs. 4–5). Their values are set high on purpose: if the kernel read them, the advantages would change.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(Slider, { name: 'gamma', symbol: 'γ', value: request.gamma, onChange: (gamma) => update({ gamma }), help: 'discount per action token' }),
      h(Slider, { name: 'lambda', symbol: 'λ', value: request.lambda, onChange: (lambda) => update({ lambda }), help: 'bias (0) ↔ variance (1)' }),
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'λ presets' },
        PRESETS.map((p) =>
          h('button', { key: p.label, type: 'button', 'aria-pressed': request.lambda === p.lambda, onClick: () => update({ lambda: p.lambda }) }, p.label),
        ),
      ),
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'outcome' },
        h('button', { type: 'button', 'aria-pressed': request.outcome === 1, onClick: () => update({ outcome: 1 }) }, 'answer correct (r = 1)'),
        h('button', { type: 'button', 'aria-pressed': request.outcome === 0, onClick: () => update({ outcome: 0 }) }, 'answer wrong (r = 0)'),
      ),
    ),
    h(
      'p',
      { class: `device-line${stale ? ' stale' : ''}`, 'data-testid': 'gae-device', 'data-computed-on': answer?.computedOn ?? '' },
      answer
        ? `${answer.computedOn === 'gpu' ? 'Computed by the GAE kernel (WGSL) on' : 'Computed by'} ${answer.deviceLine} in ${answer.millis.toFixed(1)} ms${stale ? ' — recomputing…' : ''}`
        : 'Starting the GPU in the worker…',
    ),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    answer ? h(Lane, { answer, selected, linked, onSelect: setSelected }) : null,
    answer ? h(GaeEquations, { answer, t: selected, onLink: setLinked }) : null,
  );
}
