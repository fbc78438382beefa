// PPO clipping walkthrough (docs/ui.md §3): six tokens with ℓ_old, ℓ and A through the policy-loss
// kernel; ε_low, ε_high, the dual clip c and the advantage's sign are controls; the table shows
// ρ, clip(ρ), which term of the objective is active, the per-token loss and gradient; the chart is
// the surrogate against ρ from the same kernel with the tokens on it; the equations are worked with
// the selected token's numbers. Clip-higher (DAPO, arXiv:2503.14476) is the default ε_high = 0.28;
// dual clip is arXiv:1912.09729.

import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { EngineHandle } from '../engine/client.ts';
import type { PpoAnswer, PpoBranch, PpoRequest } from '../engine/walk-api.ts';
import { PPO_TOKENS } from '../engine/walk-data.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { LineChart } from './walk-chart.ts';
import { Choice, DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const T = PPO_TOKENS.length;

/** Each branch in words and a glyph, so none reads by colour alone. */
export const BRANCH_TEXT: Record<PpoBranch, string> = {
  unclipped: '✓ ρ·A (unclipped)',
  'clipped-high': '⊣ clipped at 1+ε_high',
  'clipped-low': '⊢ clipped at 1−ε_low',
  'dual-clip': '⇥ dual clip −c·A',
  'no-signal': '· A = 0',
};

const ROWS: { key: string; label: string; of: (a: PpoAnswer) => (number | string)[] }[] = [
  { key: 'oldLogp', label: 'ℓ_old log π_old', of: (a) => a.oldLogp },
  { key: 'logp', label: 'ℓ log π', of: (a) => a.logp },
  { key: 'A', label: 'A advantage', of: (a) => a.advantages },
  { key: 'ratio', label: 'ρ = e^(ℓ−ℓ_old)', of: (a) => a.ratio },
  { key: 'clipped', label: 'clip(ρ, 1−ε_low, 1+ε_high)', of: (a) => a.clippedRatio },
  { key: 'branch', label: 'active term', of: (a) => a.branch.map((b) => BRANCH_TEXT[b]) },
  { key: 'loss', label: 'pg loss (minimized)', of: (a) => a.loss },
  { key: 'grad', label: '∂pg/∂ℓ', of: (a) => a.grad },
];

function TokenTable({ answer, selected, onSelect }: { answer: PpoAnswer; selected: number; onSelect: (t: number) => void }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'token'),
          PPO_TOKENS.map((tok, t) =>
            h(
              'th',
              { key: t, scope: 'col', class: t === selected ? 'selected' : undefined },
              h(
                'button',
                {
                  type: 'button',
                  class: 'walk-pick',
                  onClick: () => onSelect(t),
                  'aria-pressed': t === selected,
                  'aria-label': `token ${t}: ${tok.text.trim()}`,
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
            row.of(answer).map((x, t) =>
              h(
                'td',
                {
                  key: t,
                  class: `${t === selected ? 'selected' : ''}${row.key === 'branch' ? ` branch-${answer.branch[t]}` : ''}`,
                  'data-cell': `${row.key}-${t}`,
                  'data-value': String(x),
                },
                typeof x === 'number' ? fmt(x, 3) : x,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function worked(a: PpoAnswer, t: number): string {
  const { epsLow, epsHigh, dualClip } = a.request;
  const A = a.advantages[t];
  const rho = a.ratio[t];
  const lines = [
    String.raw`\rho_{${t}} &= e^{${tex(a.logp[t])} - (${tex(a.oldLogp[t])})} = ${tex(rho)}`,
    String.raw`\operatorname{clip}(\rho_{${t}}) &= \operatorname{clip}(${tex(rho)},\ ${tex(1 - epsLow, 2)},\ ${tex(1 + epsHigh, 2)}) = ${tex(a.clippedRatio[t])}`,
    String.raw`\mathrm{pg}_{${t}} &= \max\big(-(${tex(A)})(${tex(rho)}),\ -(${tex(A)})(${tex(a.clippedRatio[t])})\big)${dualClip > 0 && A < 0 ? String.raw`\ \text{then}\ \min(\cdot,\ -${tex(dualClip, 1)}\,(${tex(A)}))` : ''} = ${tex(a.loss[t])}`,
    a.branch[t] === 'unclipped'
      ? String.raw`\partial\mathrm{pg}_{${t}}/\partial\ell_{${t}} &= -A_{${t}}\,\rho_{${t}} = -(${tex(A)})(${tex(rho)}) = ${tex(a.grad[t])}`
      : String.raw`\partial\mathrm{pg}_{${t}}/\partial\ell_{${t}} &= ${tex(a.grad[t])}\quad\text{(the active term is constant in }\ell\text{)}`,
  ];
  return String.raw`\begin{aligned}${lines.join(' \\\\ ')}\end{aligned}`;
}

function Equations({ answer, t }: { answer: PpoAnswer; t: number }) {
  return h(
    'div',
    { class: 'equations' },
    h(Tex, {
      source: String.raw`\rho_t = e^{\ell_t - \ell^{old}_t}\qquad \mathrm{pg}_t = \max\big(-A_t\rho_t,\ -A_t\operatorname{clip}(\rho_t, 1-\varepsilon_{low}, 1+\varepsilon_{high})\big)\qquad \text{dual clip } (A_t<0):\ \min(\mathrm{pg}_t, -c\,A_t)`,
    }),
    h(
      'p',
      { class: 'note', 'data-testid': 'ppo-worked-note' },
      `Token ${t} (“${PPO_TOKENS[t].text.trim()}”), with the numbers on screen: ${BRANCH_TEXT[answer.branch[t]]}.`,
    ),
    h('div', { class: 'worked' }, h(Tex, { source: worked(answer, t) })),
  );
}

export function PpoWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<PpoRequest>(url, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.28, dualClip: 3, sign: 1 });
  const [selected, setSelected] = useState(4);
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<PpoRequest>) => setRequest({ ...request, ...patch });
  const description = answer
    ? `The surrogate objective −pg against the ratio ρ for A ${answer.request.sign > 0 ? '> 0' : '< 0'}: ${
        answer.request.sign > 0
          ? `it rises with ρ and goes flat above 1 + ε_high = ${(1 + answer.request.epsHigh).toFixed(2)}, so pushing ρ further earns nothing.`
          : `it falls as ρ grows and is flat below 1 − ε_low = ${(1 - answer.request.epsLow).toFixed(2)}${answer.request.dualClip > 0 ? `; above ρ = c = ${answer.request.dualClip.toFixed(1)} the dual clip holds it at c·A` : ''}.`
      } The six tokens sit on the curve at their ratios.`
    : '';
  return h(
    'section',
    { class: 'walk ppo', 'aria-label': 'PPO clipping walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'PPO updates the policy several times on one batch of samples. The ratio ρ = π/π_old says how much more (or less) likely the new policy makes a sampled token than the policy that sampled it. ',
        'The loss multiplies ρ by the advantage, but clips ρ to [1 − ε_low, 1 + ε_high] and takes the pessimistic of the two terms: once a token has moved far enough in the direction its advantage asks for, its gradient is zero.',
      ),
      h(
        'p',
        null,
        'With A > 0 only ρ above 1 + ε_high is clipped; with A < 0 only ρ below 1 − ε_low. A token that moved the wrong way is never clipped: its gradient pulls it back. The dual clip caps the loss of a negative-advantage token whose ratio exploded at −c·A.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(RangeSlider, {
        name: 'epsLow',
        label: 'ε_low',
        value: request.epsLow,
        min: 0,
        max: 0.5,
        step: 0.01,
        help: 'clip below 1 − ε_low (A < 0)',
        onChange: (epsLow) => update({ epsLow }),
      }),
      h(RangeSlider, {
        name: 'epsHigh',
        label: 'ε_high',
        value: request.epsHigh,
        min: 0,
        max: 1,
        step: 0.01,
        help: 'clip above 1 + ε_high (A > 0); DAPO 0.28',
        onChange: (epsHigh) => update({ epsHigh }),
      }),
      h(RangeSlider, {
        name: 'dualClip',
        label: 'c',
        value: request.dualClip,
        min: 1,
        max: 5,
        step: 0.1,
        digits: 1,
        help: 'dual clip; 1.0 = off',
        onChange: (c) => update({ dualClip: c <= 1 ? 0 : c }),
      }),
      h(Choice, {
        label: 'advantage sign',
        value: request.sign,
        options: [
          { value: 1, text: 'A > 0 (good tokens)' },
          { value: -1, text: 'A < 0 (bad tokens)' },
        ],
        onChange: (sign) => update({ sign: sign > 0 ? 1 : -1 }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'policy-loss', stale, testId: 'ppo-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? h(TokenTable, { answer, selected, onSelect: setSelected }) : null,
    answer
      ? h(
          'p',
          { class: 'note', 'data-testid': 'ppo-fractions' },
          `The kernel's clip metrics: ${fmt(answer.highFraction * T, 0)} of ${T} tokens clipped high, ${fmt(answer.lowFraction * T, 0)} clipped low, ${fmt(answer.dualFraction * T, 0)} at the dual clip (policy/clip_frac in the dashboard is the same count over a whole batch).`,
        )
      : null,
    answer
      ? h(LineChart, {
          testId: 'ppo-chart',
          curve: { x: answer.curve.ratio, y: answer.curve.objective },
          markers: [
            { x: 1 - answer.request.epsLow, label: '1−ε_low' },
            { x: 1 + answer.request.epsHigh, label: '1+ε_high' },
            ...(answer.request.dualClip > 0 && answer.request.sign < 0 ? [{ x: answer.request.dualClip, label: 'c' }] : []),
          ],
          points: answer.ratio.map((r, t) => ({
            x: r,
            y: -answer.loss[t] / PPO_TOKENS[t].magnitude,
            label: PPO_TOKENS[t].text.trim(),
            selected: t === selected,
          })),
          xLabel: 'ratio ρ',
          yLabel: '−pg per unit |A|',
          description,
        })
      : null,
    answer ? h(Equations, { answer, t: selected }) : null,
  );
}
