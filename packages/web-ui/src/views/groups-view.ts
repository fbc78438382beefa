// GRPO and RLOO groups walkthrough (docs/ui.md §4): one prompt's group of completions whose rewards
// the learner edits (a slider each, presets, add or remove a completion); the group-baseline kernel
// gives GRPO's z-score (sample std, ε = 1e-6), Dr.GRPO's mean-only baseline and RLOO's leave-one-out
// advantage side by side; an all-equal group is flagged: every advantage is 0 and, under
// rl.dynamicSampling (DAPO), the group is dropped. The equations are worked for the selected completion.

import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { EngineHandle } from '../engine/client.ts';
import type { GroupsAnswer, GroupsRequest } from '../engine/walk-api.ts';
import { GROUP_DEFAULT_REWARDS, GROUP_MAX } from '../engine/walk-data.ts';
import { divergingColor, textOn } from './colors.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { DeviceLine, ErrorLine, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const PRESETS: { label: string; rewards: number[] }[] = [
  { label: '3 of 6 correct', rewards: [...GROUP_DEFAULT_REWARDS] },
  { label: '1 of 6 correct', rewards: [0, 0, 1, 0, 0, 0] },
  { label: 'all correct', rewards: [1, 1, 1, 1, 1, 1] },
  { label: 'partial credit', rewards: [0.9, 0.2, 0.5, 0.75, 0.1, 0.55] },
];

const COLUMNS = [
  { key: 'grpo', label: 'GRPO Aᵢ', of: (a: GroupsAnswer) => a.grpo },
  { key: 'drGrpo', label: 'Dr.GRPO Aᵢ', of: (a: GroupsAnswer) => a.drGrpo },
  { key: 'rloo', label: 'RLOO Aᵢ', of: (a: GroupsAnswer) => a.rloo },
] as const;

const signGlyph = (x: number) => (x > 0 ? '▲' : x < 0 ? '▼' : '·');

function Cell({ x, extent, cell }: { x: number; extent: number; cell: string }) {
  const t = x / extent;
  return h('td', { 'data-cell': cell, 'data-value': String(x), style: { background: divergingColor(t), color: textOn(t) } }, `${signGlyph(x)} ${fmt(x, 3)}`);
}

function worked(a: GroupsAnswer, i: number): string {
  const G = a.request.rewards.length;
  const R = a.request.rewards[i];
  if (G < 2) return String.raw`G = 1:\ \text{no other completion to compare with, so } A_{${i + 1}} = 0`;
  const others = a.request.rewards.filter((_, j) => j !== i);
  const baseline = R - a.rloo[i];
  return String.raw`\begin{aligned}
\text{GRPO: } A_{${i + 1}} &= \frac{R_{${i + 1}} - \bar R}{s + \varepsilon} = \frac{${tex(R, 2)} - ${tex(a.mean)}}{${tex(a.std)} + 10^{-6}} = ${tex(a.grpo[i])} \\
\text{Dr.GRPO: } A_{${i + 1}} &= R_{${i + 1}} - \bar R = ${tex(R, 2)} - ${tex(a.mean)} = ${tex(a.drGrpo[i])} \\
\text{RLOO: } b_{${i + 1}} &= \tfrac{1}{${G - 1}}(${others.map((r) => tex(r, 2)).join(' + ')}) = ${tex(baseline)},\quad A_{${i + 1}} = ${tex(R, 2)} - ${tex(baseline)} = ${tex(a.rloo[i])}
\end{aligned}`;
}

export function GroupsWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<GroupsRequest>(url, { kind: 'groups', rewards: [...GROUP_DEFAULT_REWARDS] });
  const [selected, setSelected] = useState(0);
  const { answer, error, stale } = useWalk(engine, request);
  const rewards = request.rewards;
  const setRewards = (next: number[]) => {
    setRequest({ kind: 'groups', rewards: next });
    setSelected((s) => Math.min(s, next.length - 1));
  };
  const G = rewards.length;
  const extent = answer ? Math.max(1e-6, ...[...answer.grpo, ...answer.rloo, ...answer.drGrpo].map(Math.abs)) : 1;
  const shown = answer && answer.request.rewards.length === G ? answer : null;
  return h(
    'section',
    { class: 'walk groups', 'aria-label': 'GRPO and RLOO walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'GRPO and RLOO need no critic: the policy answers the same prompt G times, and each answer is judged against the others. ',
        'GRPO subtracts the group mean and divides by the group’s standard deviation; Dr.GRPO drops the division (it up-weights groups that are nearly all right or all wrong); RLOO subtracts the mean of the other G − 1 answers, which is G/(G − 1) times Dr.GRPO’s advantage.',
      ),
      h(
        'p',
        null,
        'Every token of an answer gets its answer’s advantage. When every reward in the group is equal, no answer is better than another: every advantage is 0, the group adds nothing to the gradient, and DAPO’s dynamic sampling (rl.dynamicSampling) drops it.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'reward presets' },
        PRESETS.map((p) =>
          h(
            'button',
            { key: p.label, type: 'button', 'aria-pressed': JSON.stringify(p.rewards) === JSON.stringify(rewards), onClick: () => setRewards([...p.rewards]) },
            p.label,
          ),
        ),
      ),
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'group size' },
        h('button', { type: 'button', disabled: G >= GROUP_MAX, onClick: () => setRewards([...rewards, 0]) }, '+ completion'),
        h('button', { type: 'button', disabled: G <= 1, onClick: () => setRewards(rewards.slice(0, -1)) }, '− completion'),
      ),
    ),
    h(DeviceLine, { answer, kernel: 'group-baseline', stale, testId: 'groups-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    shown
      ? h(
          'p',
          { class: `note${shown.allEqual ? ' flag' : ''}`, 'data-testid': 'groups-stats', role: 'status' },
          shown.allEqual
            ? `⚠ All ${G} rewards are equal (${fmt(rewards[0], 2)}): every advantage is 0 — this group carries no learning signal, and rl.dynamicSampling would drop it.`
            : `Group of ${G}: mean R̄ = ${fmt(shown.mean, 3)}, sample std s = ${fmt(shown.std, 3)} (n − 1, as torch.std).`,
        )
      : null,
    h(
      'div',
      { class: 'lane-wrap' },
      h(
        'table',
        { class: 'lane walk-table groups-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'completion'),
            h('th', { scope: 'col' }, 'reward Rᵢ'),
            COLUMNS.map((c) => h('th', { key: c.key, scope: 'col' }, c.label)),
          ),
        ),
        h(
          'tbody',
          null,
          rewards.map((r, i) =>
            h(
              'tr',
              { key: i, 'data-row': i, class: i === selected ? 'selected' : undefined },
              h(
                'th',
                { scope: 'row' },
                h('button', { type: 'button', class: 'walk-pick', 'aria-pressed': i === selected, onClick: () => setSelected(i) }, `#${i + 1}`),
              ),
              h(
                'td',
                { class: 'reward-cell' },
                h(
                  'span',
                  { class: 'reward-control' },
                  h('input', {
                    type: 'range',
                    name: `reward-${i}`,
                    min: 0,
                    max: 1,
                    step: 0.05,
                    value: r,
                    'aria-label': `reward of completion ${i + 1}`,
                    onInput: (e: Event) => setRewards(rewards.map((x, j) => (j === i ? Number((e.target as HTMLInputElement).value) : x))),
                    onFocus: () => setSelected(i),
                  }),
                  h('output', { 'data-testid': `reward-${i}-value` }, r.toFixed(2)),
                ),
              ),
              shown
                ? COLUMNS.map((c) => h(Cell, { key: c.key, x: c.of(shown)[i], extent, cell: `${c.key}-${i}` }))
                : COLUMNS.map((c) => h('td', { key: c.key }, '…')),
            ),
          ),
        ),
      ),
    ),
    shown
      ? h(
          'div',
          { class: 'equations' },
          h(Tex, {
            source: String.raw`\bar R = \tfrac1G\textstyle\sum_j R_j \qquad s = \sqrt{\tfrac{1}{G-1}\sum_j (R_j-\bar R)^2} \qquad A^{\mathrm{GRPO}}_i = \frac{R_i-\bar R}{s+\varepsilon} \qquad A^{\mathrm{RLOO}}_i = R_i - \tfrac{1}{G-1}\textstyle\sum_{j\ne i}R_j`,
          }),
          h(
            'p',
            { class: 'note' },
            `Completion ${selected + 1}, with the numbers on screen (the advantages are the kernel’s; R̄ and s are computed on the worker for this text):`,
          ),
          h('div', { class: 'worked' }, h(Tex, { source: worked(shown, Math.min(selected, G - 1)) })),
        )
      : null,
  );
}
