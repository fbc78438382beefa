// The GAE equations for the selected token, typeset with KaTeX, every number a link to its cell in
// the table (docs/ui.md §10). The numbers are the kernel's answer and its inputs, never recomputed here,
// so the text cannot disagree with the table (distill post--momentum #90).

import katex from 'katex';
import { h } from 'preact';
import { useMemo } from 'preact/hooks';
import type { GaeAnswer } from '../engine/api.ts';

const tex = (x: number) => (Object.is(x, -0) ? 0 : x).toFixed(3);

/** A number in the equation, tagged with the table cell it comes from (row key and token index). */
const linked = (row: string, t: number | null, x: number) => (t === null ? `\\underset{\\text{end}}{${tex(x)}}` : `\\htmlData{cell=${row}-${t}}{${tex(x)}}`);

/** The next action token after t, or null past the last one. */
export function nextAction(mask: readonly number[], t: number): number | null {
  for (let u = t + 1; u < mask.length; u++) if (mask[u] === 1) return u;
  return null;
}

function render(source: string): string {
  return katex.renderToString(source, { displayMode: true, throwOnError: true, strict: 'ignore', trust: (ctx) => ctx.command === '\\htmlData' });
}

export function GaeEquations({ answer, t, onLink }: { answer: GaeAnswer; t: number; onLink: (cell: string | null) => void }) {
  const { gamma, lambda } = answer.request;
  const html = useMemo(() => {
    const general = render(
      String.raw`\delta_t = r_t + \gamma\,V_{t'} - V_t \qquad A_t = \delta_t + \gamma\lambda\,A_{t'} \qquad \hat R_t = A_t + V_t \qquad t' = \text{next action token}`,
    );
    if (answer.actionMask[t] !== 1) return { general, worked: '' };
    const u = nextAction(answer.actionMask, t);
    const vNext = u === null ? 0 : answer.values[u];
    const aNext = u === null ? 0 : answer.advantages[u];
    const at = `_{${t}}`;
    const worked = render(
      String.raw`\begin{aligned}
\delta${at} &= ${linked('r', t, answer.rewards[t])} + \htmlData{cell=gamma}{${gamma.toFixed(2)}} \times ${linked('V', u, vNext)} - ${linked('V', t, answer.values[t])} = ${linked('delta', t, answer.deltas[t])} \\
A${at} &= ${linked('delta', t, answer.deltas[t])} + \htmlData{cell=gamma}{${gamma.toFixed(2)}} \times \htmlData{cell=lambda}{${lambda.toFixed(2)}} \times ${linked('A', u, aNext)} = ${linked('A', t, answer.advantages[t])} \\
\hat R${at} &= ${linked('A', t, answer.advantages[t])} + ${linked('V', t, answer.values[t])} = ${linked('R', t, answer.returns[t])}
\end{aligned}`,
    );
    return { general, worked };
  }, [answer, t, gamma, lambda]);
  const hover = (event: Event) => {
    const el = (event.target as HTMLElement).closest<HTMLElement>('[data-cell]');
    onLink(el?.dataset.cell ?? null);
  };
  const u = nextAction(answer.actionMask, t);
  return h(
    'div',
    { class: 'equations', onMouseOver: hover, onMouseLeave: () => onLink(null) },
    h('div', { dangerouslySetInnerHTML: { __html: html.general } }),
    answer.actionMask[t] === 1
      ? h(
          'div',
          null,
          h(
            'p',
            { class: 'note' },
            `Token ${t}, worked through with the numbers on screen (hover a number to find its cell). `,
            u === null
              ? 'It is the last action token: the episode ended, so nothing follows it (V = 0, A = 0 past the end).'
              : u > t + 1
                ? `Its next action token is ${u}: the observation tokens in between are skipped.`
                : `Its next action token is ${u}.`,
          ),
          h('div', { class: 'worked', dangerouslySetInnerHTML: { __html: html.worked } }),
        )
      : h('p', { class: 'note' }, `Token ${t} is not an action token: the kernel skips it (no δ, no advantage, no return). Pick an action token.`),
  );
}
