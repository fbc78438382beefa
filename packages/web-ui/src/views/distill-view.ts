// On-policy distillation walkthrough (docs/ui.md §17): the student's sampled answers to two prompts of
// the mixed task, scored by two teachers; per token the sampled reverse KL k_t = ℓ^S − ℓ^T and the
// advantage Â_t = −λ_opd·k_t from the distillation-advantage kernel (slime's form, A = 0, no
// discounting); routing (distill.route) picks which teacher each prompt's row trains on, and the
// table of mean reverse KL shows what the other teacher would have said.

import { h } from 'preact';
import type { EngineHandle } from '../engine/client.ts';
import type { DistillAnswer, DistillRequest } from '../engine/walk-api.ts';
import { DISTILL_PROMPTS, DISTILL_TEACHERS } from '../engine/walk-data.ts';
import { divergingColor, textOn } from './colors.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { Choice, DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const K = DISTILL_TEACHERS.length;
const routedRow = (a: DistillAnswer, p: number) => a.rows[p * K + a.request.route[p]];
const meanKl = (a: DistillAnswer, p: number, k: number) => {
  const n = DISTILL_PROMPTS[p].tokens.length;
  return a.rows[p * K + k].reverseKl.slice(0, n).reduce((s, x) => s + x, 0) / n;
};
const ROUTES = [
  { label: 'route by skill (addition=1, subtraction=2)', route: [0, 1] },
  { label: 'everything to teacher 1', route: [0, 0] },
  { label: 'swapped (addition=2, subtraction=1)', route: [1, 0] },
];

function PromptTable({ answer, p }: { answer: DistillAnswer; p: number }) {
  const prompt = DISTILL_PROMPTS[p];
  const row = routedRow(answer, p);
  const teacher = answer.request.route[p];
  const n = prompt.tokens.length;
  const extent = Math.max(1e-6, ...answer.rows.flatMap((r) => r.advantages.map(Math.abs)));
  const rows = [
    { key: 'student', label: 'ℓ^S student', values: prompt.studentLogp },
    { key: 'teacher', label: `ℓ^T ${DISTILL_TEACHERS[teacher]}`, values: prompt.teacherLogp[teacher] },
    { key: 'kl', label: 'k = ℓ^S − ℓ^T', values: row.reverseKl.slice(0, n) },
    { key: 'adv', label: 'Â = −λ·k', values: row.advantages.slice(0, n) },
  ];
  return h(
    'div',
    { class: 'lane-wrap', 'data-prompt': p, 'data-teacher': teacher },
    h(
      'table',
      { class: 'lane walk-table' },
      h('caption', null, `${prompt.prompt} (${prompt.skill}) → routed to teacher ${teacher + 1}, the ${DISTILL_TEACHERS[teacher]}`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'sampled token'),
          prompt.tokens.map((t, i) => h('th', { key: i, scope: 'col' }, h('code', null, t))),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            { key: r.key, 'data-row': r.key },
            h('th', { scope: 'row' }, r.label),
            r.values.map((x, i) => {
              const style = r.key === 'adv' ? { background: divergingColor(x / extent), color: textOn(x / extent) } : undefined;
              const glyph = r.key === 'adv' ? (x > 0 ? '▲ ' : x < 0 ? '▼ ' : '') : '';
              return h('td', { key: i, 'data-cell': `${r.key}-${p}-${i}`, 'data-value': String(x), style }, `${glyph}${fmt(x, 3)}`);
            }),
          ),
        ),
      ),
    ),
  );
}

export function DistillWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<DistillRequest>(url, { kind: 'distill', coef: 1, route: [0, 1] });
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<DistillRequest>) => setRequest({ ...request, ...patch });
  return h(
    'section',
    { class: 'walk distill', 'aria-label': 'On-policy distillation walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'In on-policy distillation the student writes the answer and a teacher grades every token of it: the teacher’s log-probability of the token the student chose. ',
        'k = ℓ^S − ℓ^T is a one-sample estimate of the reverse KL from student to teacher at that token; the advantage −λ·k pushes down tokens the teacher finds less likely than the student does and up those it finds more likely, each token on its own (no discounting).',
      ),
      h(
        'p',
        null,
        'With several experts, each prompt is routed to the teacher of its skill (distill.route), and one student learns from both. Here the student answered 15 − 8 with 6: the subtraction expert marks it down hard, the addition expert barely notices.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(RangeSlider, {
        name: 'coef',
        label: 'λ_opd',
        value: request.coef,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'slime’s --opd-kl-coef, default 1',
        onChange: (coef) => update({ coef }),
      }),
      h(Choice, {
        label: 'routing',
        value: ROUTES.findIndex((r) => r.route.join() === request.route.join()),
        options: ROUTES.map((r, i) => ({ value: i, text: r.label })),
        onChange: (i) => update({ route: [...ROUTES[i].route] }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'distillation-advantage', stale, testId: 'distill-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? DISTILL_PROMPTS.map((_, p) => h(PromptTable, { key: p, answer, p })) : null,
    answer
      ? h(
          'div',
          { class: 'lane-wrap' },
          h(
            'table',
            { class: 'lane walk-table', 'data-testid': 'distill-kl-table' },
            h('caption', null, 'Mean reverse KL per token (nats), each prompt against each teacher — what policy/distill_reverse_kl averages over a batch'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, 'prompt'),
                DISTILL_TEACHERS.map((t, k) => h('th', { key: k, scope: 'col' }, `teacher ${k + 1}: ${t}`)),
              ),
            ),
            h(
              'tbody',
              null,
              DISTILL_PROMPTS.map((prompt, p) =>
                h(
                  'tr',
                  { key: p },
                  h('th', { scope: 'row' }, `${prompt.prompt} (${prompt.skill})`),
                  DISTILL_TEACHERS.map((_, k) =>
                    h(
                      'td',
                      { key: k, 'data-cell': `mean-${p}-${k}`, class: answer.request.route[p] === k ? 'routed' : undefined },
                      `${fmt(meanKl(answer, p, k), 3)}${answer.request.route[p] === k ? ' ← routed' : ''}`,
                    ),
                  ),
                ),
              ),
            ),
          ),
        )
      : null,
    answer
      ? h(
          'div',
          { class: 'equations' },
          h(Tex, { source: String.raw`k_t = \ell^S_t - \ell^T_t \qquad \hat A_t = m_t\,(A_t - \lambda_{opd}\,k_t),\quad A_t = 0` }),
          h('p', { class: 'note' }, `The first token of ${DISTILL_PROMPTS[1].prompt}, with the numbers on screen:`),
          h(Tex, {
            source: (() => {
              const row = routedRow(answer, 1);
              const T = answer.request.route[1];
              return String.raw`k = ${tex(DISTILL_PROMPTS[1].studentLogp[0])} - (${tex(DISTILL_PROMPTS[1].teacherLogp[T][0])}) = ${tex(row.reverseKl[0])},\qquad \hat A = -${tex(answer.request.coef, 2)} \times ${tex(row.reverseKl[0])} = ${tex(row.advantages[0])}`;
            })(),
          }),
        )
      : null,
  );
}
