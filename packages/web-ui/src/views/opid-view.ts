// OPID's Δ walkthrough (docs/ui.md §21, docs/algorithms/opid.md §3–4): one episode's action tokens
// scored by a real forward pass of a tiny GPT with fresh weights on the page's device, with and
// without the routed skill; the routing switch picks which skill each step sees; the per-token Δ
// strip (colour, sign glyph and number, so it reads without colour) and the advantage the
// distillation kernel adds, Â^GRPO + coef·Δ. The model is untrained, and the page says so: Δ here
// shows the mechanism, not a policy that has learned to read skills (the pre-check measures that).

import { h } from 'preact';
import type { EngineHandle } from '../engine/client.ts';
import { OPID_GLOBAL_SKILL, OPID_ROUTINGS, OPID_STEP_SKILL } from '../engine/opid-data.ts';
import type { OpidAnswer, OpidRequest } from '../engine/walk-api.ts';
import { divergingColor, textOn } from './colors.ts';
import { fmt, fmtSigned } from './format.ts';
import { Tex, tex } from './tex.ts';
import { Choice, DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const ROUTING_TEXT: Record<OpidRequest['routing'], string> = {
  route: 'route: step skill at the critical step, global elsewhere',
  concat: 'concat: global always, plus the step skill',
  'global-only': 'global only',
  'step-only': 'step only (others unscored)',
  none: 'none (no skill)',
};

const shown = (ch: string) => (ch === '\n' ? '↵' : ch === ' ' ? '␣' : ch);
const signGlyph = (x: number) => (x > 0 ? '▲' : x < 0 ? '▼' : '·');

function DeltaStrip({ answer }: { answer: OpidAnswer }) {
  const extent = Math.max(1e-6, ...answer.delta.map(Math.abs));
  return h(
    'div',
    { class: 'span-strip', role: 'list', 'aria-label': 'per-token Δ, the skill’s change of each action token’s log-probability', 'data-testid': 'opid-strip' },
    answer.tokens.map((tok, k) => {
      const d = answer.delta[k];
      return h(
        'span',
        {
          key: k,
          role: 'listitem',
          class: 'span-token',
          style: { background: divergingColor(d / extent), color: textOn(d / extent) },
          title: `step ${tok.step}, “${shown(tok.text)}”: Δ = ${fmtSigned(d, 4)}${answer.scored[k] ? '' : ' (not scored with a skill)'}`,
          'aria-label': `step ${tok.step} token ${shown(tok.text)}: Δ ${fmtSigned(d, 4)}`,
        },
        h('code', null, shown(tok.text)),
        h('small', null, `${signGlyph(d)}${fmt(Math.abs(d), 2)}`),
      );
    }),
  );
}

const ROWS: { key: string; label: string; of: (a: OpidAnswer) => number[] }[] = [
  { key: 'original', label: 'log π(a | context)', of: (a) => a.originalLogp },
  { key: 'augmented', label: 'log π(a | context + skill)', of: (a) => a.augmentedLogp },
  { key: 'delta', label: 'Δ (kernel)', of: (a) => a.delta },
  { key: 'advantage', label: 'Â = Â^GRPO + coef·Δ (kernel)', of: (a) => a.advantages },
];

function TokenTable({ answer }: { answer: OpidAnswer }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'opid-table' },
      h('caption', null, 'Every action token of the episode (one character each): step 0 reads the README, step 1 writes the answer'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'token'),
          answer.tokens.map((t, k) =>
            h('th', { key: k, scope: 'col', class: t.step === 1 && answer.tokens[k - 1]?.step === 0 ? 'cut-after' : undefined }, shown(t.text)),
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
            row.of(answer).map((x, k) => h('td', { key: k, 'data-cell': `${row.key}-${k}`, 'data-value': String(x) }, fmt(x, 3))),
          ),
        ),
      ),
    ),
  );
}

function Injections({ answer }: { answer: OpidAnswer }) {
  return h(
    'ul',
    { class: 'note', 'data-testid': 'opid-injections' },
    answer.injections.map((inj, step) =>
      h(
        'li',
        { key: step, 'data-step': step },
        `Step ${step}${step === 1 ? ' (critical: after the README)' : ''}: `,
        inj.afterPrompt === null && inj.beforeStep === null
          ? 'scored without a skill, Δ = 0'
          : [
              inj.afterPrompt !== null ? `global skill after the prompt` : null,
              inj.beforeStep !== null ? `step skill “${inj.beforeStep}” before the step` : null,
            ]
              .filter(Boolean)
              .join(' and '),
      ),
    ),
  );
}

export function OpidWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<OpidRequest>(url, { kind: 'opid', routing: 'route', coef: 0.5, grpo: 0.5 });
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<OpidRequest>) => setRequest({ ...request, ...patch });
  const k = answer ? answer.delta.findIndex((_, i) => answer.scored[i] === 1) : -1;
  return h(
    'section',
    { class: 'walk opid', 'aria-label': 'OPID skill Δ walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'OPID turns a successful sibling rollout into skills — a global workflow and a step-level hint at a critical point — and scores the policy’s own rollout twice: as it was sampled, and with the skill in its context. ',
        'The per-token Δ = log π(a | context + skill) − log π(a | context) says which tokens the skill makes more likely; OPID adds coef·Δ to the group-relative advantage, so the policy learns to act as if it had the skill without ever seeing it.',
      ),
      h(
        'p',
        null,
        `Skills here: global “${OPID_GLOBAL_SKILL}”, step “${OPID_STEP_SKILL}”. The scoring model has fresh, untrained weights: its Δ shows the mechanism, not a policy that learned to read skills.`,
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(Choice, {
        label: 'routing',
        value: OPID_ROUTINGS.indexOf(request.routing),
        options: OPID_ROUTINGS.map((r, i) => ({ value: i, text: ROUTING_TEXT[r] })),
        onChange: (i) => update({ routing: OPID_ROUTINGS[i] }),
      }),
      h(RangeSlider, {
        name: 'coef',
        label: 'coef',
        value: request.coef,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'weight of Δ (the authors use 1e-3)',
        onChange: (coef) => update({ coef }),
      }),
      h(RangeSlider, {
        name: 'grpo',
        label: 'Â^GRPO',
        value: request.grpo,
        min: -1,
        max: 1,
        step: 0.05,
        help: 'the rollout’s group-relative advantage',
        onChange: (grpo) => update({ grpo }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'GPT forward and distillation', stale, testId: 'opid-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? h('p', { class: 'note', 'data-testid': 'opid-model' }, `Scored by ${answer.model}.`) : null,
    answer ? h(Injections, { answer }) : null,
    answer ? h(DeltaStrip, { answer }) : null,
    answer ? h(TokenTable, { answer }) : null,
    answer && k >= 0
      ? h(
          'div',
          { class: 'worked' },
          h(Tex, {
            source: String.raw`\hat A_{${k}} = \hat A^{GRPO} + \text{coef}\cdot\Delta_{${k}} = ${tex(answer.request.grpo, 2)} + ${tex(answer.request.coef, 2)}\cdot(${tex(answer.augmentedLogp[k])} - (${tex(answer.originalLogp[k])})) = ${tex(answer.advantages[k])}`,
          }),
        )
      : null,
  );
}
