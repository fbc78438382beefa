// The OPID lab (docs/ui.md §23, docs/algorithms/opid.md): core's `hidden-opid` preset trained live
// in the worker, shrunk to the browser; after each RL iteration, the skills core's parser mined from
// the policy's own rollouts (per group: the global workflow and the step skills), one rollout's
// steps with what each was scored with, the Δ strip the trainer logged, and a routing switch that
// rescores the rollout with the policy that sampled it (engine/opid-lab.ts) and shows the Δ and
// the advantage coef·Δ adds. Keyboard: every control is a button or a select; the Δ strip is one
// tab stop, ← → Home End move along its tokens and the focused token's numbers are read out.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { DeviceStatus } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import {
  OPID_LAB_PRESET,
  OPID_LAB_ROUTINGS,
  OPID_LAB_SETS,
  type OpidLabRouting,
  type OpidLabState,
  type OpidRescoreAnswer,
  type OpidRescoreRequest,
} from '../../engine/opid-lab-data.ts';
import { LatestOnly } from '../../state/latest.ts';
import { divergingColor, textOn } from '../colors.ts';
import { fmt, fmtSigned } from '../format.ts';
import { Choice, DeviceLine, ErrorLine } from '../walk-parts.ts';
import { LabTransport, useLabRun } from './lab-run.ts';

const ROUTING_TEXT: Record<OpidLabRouting, string> = {
  route: 'route (OPID’s rule)',
  concat: 'concat',
  'global-only': 'global only',
  'step-only': 'step only',
  none: 'none',
};

const shown = (ch: string) => (ch === '\n' ? '↵' : ch === ' ' ? '␣' : ch);
const signGlyph = (x: number) => (x > 0 ? '▲' : x < 0 ? '▼' : '·');
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The per-token Δ of a rollout: one tab stop, arrow keys move, the focused token's numbers in a live line. */
function DeltaStrip(props: { answer: OpidRescoreAnswer; values: number[]; label: string; testId: string }) {
  const { answer, values } = props;
  const [focus, setFocus] = useState(0);
  const extent = Math.max(1e-6, ...values.map(Math.abs));
  const n = values.length;
  const at = Math.min(focus, n - 1);
  const onKey = (e: KeyboardEvent) => {
    const to = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : null;
    if (to === null) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(n - 1, to));
    setFocus(next);
    (e.currentTarget as HTMLElement).querySelector<HTMLElement>(`[data-k="${next}"]`)?.focus();
  };
  const tok = answer.tokens[at];
  return h(
    'div',
    { class: 'lab-strip' },
    h(
      'div',
      { class: 'span-strip', role: 'toolbar', 'aria-label': props.label, 'data-testid': props.testId, onKeyDown: onKey },
      answer.tokens.map((t, k) => {
        const d = values[k];
        return h(
          'span',
          {
            key: k,
            'data-k': k,
            'data-value': String(d),
            tabIndex: k === at ? 0 : -1,
            class: `span-token${answer.scored[k] ? '' : ' unscored'}`,
            style: { background: divergingColor(d / extent), color: textOn(d / extent) },
            title: `step ${t.step}, “${shown(t.text)}”: Δ = ${fmtSigned(d, 4)}`,
            'aria-label': `step ${t.step} token ${shown(t.text)}: Δ ${fmtSigned(d, 4)}`,
            onFocus: () => setFocus(k),
          },
          h('code', null, shown(t.text)),
          h('small', null, `${signGlyph(d)}${fmt(Math.abs(d), 2)}`),
        );
      }),
    ),
    tok
      ? h(
          'p',
          { class: 'note', 'aria-live': 'polite', 'data-testid': `${props.testId}-focus` },
          `Token ${at} (step ${tok.step}, “${shown(tok.text)}”): Δ = ${fmtSigned(values[at], 4)}, Â = ${fmtSigned(answer.advantages[at], 4)}`,
        )
      : null,
  );
}

function SkillsTable({ state }: { state: OpidLabState }) {
  const cell = (text: string | null) => (text === null ? h('td', { class: 'note' }, 'none') : h('td', null, h('code', null, text)));
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'opid-skills' },
      h('caption', null, `Skills core’s parser mined from iteration ${state.iteration}’s rollouts, one row per group (prompt)`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'group'),
          h('th', { scope: 'col' }, 'global'),
          h('th', { scope: 'col' }, 'after-readme'),
          h('th', { scope: 'col' }, 'after-fail'),
        ),
      ),
      h(
        'tbody',
        null,
        state.groups.map((g) =>
          h(
            'tr',
            { key: g.groupId, 'data-group': g.groupId },
            h('th', { scope: 'row' }, String(g.groupId)),
            cell(g.global),
            cell(g.afterReadme),
            cell(g.afterFail),
          ),
        ),
      ),
    ),
  );
}

const ROWS: { key: keyof OpidRescoreAnswer & string; label: string }[] = [
  { key: 'plainLogp', label: 'log π_old(a | context)' },
  { key: 'skillLogp', label: 'log π_old(a | context + skill)' },
  { key: 'delta', label: 'Δ (kernel)' },
  { key: 'loggedDelta', label: 'Δ the trainer logged (run’s routing)' },
  { key: 'grpo', label: 'Â^GRPO' },
  { key: 'advantages', label: 'Â = Â^GRPO + coef·Δ (kernel)' },
];

function TokenTable({ answer }: { answer: OpidRescoreAnswer }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'opid-lab-table' },
      h('caption', null, 'Every action token of the rollout'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'token'),
          answer.tokens.map((t, k) => h('th', { key: k, scope: 'col', title: `step ${t.step}` }, shown(t.text))),
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
            (answer[row.key] as number[]).map((x, k) => h('td', { key: k, 'data-cell': `${row.key}-${k}`, 'data-value': String(x) }, fmt(x, 3))),
          ),
        ),
      ),
    ),
  );
}

function Steps({ state, rollout, answer }: { state: OpidLabState; rollout: number; answer: OpidRescoreAnswer | null }) {
  const r = state.rollouts[rollout];
  if (!r) return null;
  return h(
    'ol',
    { class: 'note lab-steps', start: 0, 'data-testid': 'opid-steps' },
    r.steps.map((s, k) =>
      h(
        'li',
        { key: k, 'data-step': k },
        h('code', null, s.action),
        s.critical ? h('strong', null, ` — critical: ${s.critical}`) : null,
        ` — the trainer scored it with: ${s.routed === '' ? 'no skill' : `“${s.routed}”`}`,
        answer && answer.request.rollout === rollout
          ? ` — this routing: ${answer.injections[k] === '' ? 'no skill (Δ = 0)' : `“${answer.injections[k]}”`}`
          : null,
      ),
    ),
  );
}

export function OpidLab({ engine, device, sets }: { engine: EngineHandle; device: DeviceStatus | null; sets: string[] }) {
  const request = useMemo(() => ({ recipe: OPID_LAB_PRESET, sets: [...OPID_LAB_SETS, ...sets] }), [sets.join('\n')]);
  const { run, busy, error, start, pause } = useLabRun(engine, `opid:${request.sets.join('\n')}`, request, 'opid');
  const [state, setState] = useState<OpidLabState | null>(null);
  const [rollout, setRollout] = useState(0);
  const [routing, setRouting] = useState<OpidLabRouting>('route');
  const [answer, setAnswer] = useState<OpidRescoreAnswer | null>(null);
  const [rescoreError, setRescoreError] = useState<string | null>(null);
  const rlRows = run?.records.filter((r) => r.phase === 'rl') ?? [];
  // A new RL row means a new iteration's rollouts in the worker's lab.
  useEffect(() => {
    if (!run) return;
    engine.opidLab().then(setState, (e) => setRescoreError(String((e as Error)?.message ?? e)));
  }, [engine, run?.id, rlRows.length]);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: OpidRescoreRequest) => engine.opidRescore(r),
        (a: OpidRescoreAnswer) => {
          setRescoreError(null);
          setAnswer(a);
        },
        (e) => setRescoreError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  const chosen = state ? Math.min(rollout, state.rollouts.length - 1) : 0;
  useEffect(() => {
    if (state && state.rollouts.length > 0) queue.request({ iteration: state.iteration, rollout: chosen, routing });
  }, [queue, state, chosen, routing]);
  const want = state ? JSON.stringify({ iteration: state.iteration, rollout: chosen, routing }) : '';
  const stale = answer !== null && JSON.stringify(answer.request) !== want;
  const last = rlRows.at(-1)?.metrics;
  const blocked = !device
    ? 'Starting the GPU in the worker…'
    : device.kind === 'none'
      ? `The lab trains on WebGPU, and this browser has none (${device.line}).`
      : null;
  const scored = answer ? answer.scored.filter((s) => s === 1).length : 0;
  return h(
    'section',
    { class: 'walk lab opid-lab', 'aria-label': 'OPID lab', 'data-answer-for': answer && !stale ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'OPID trains GRPO plus a per-token skill advantage: after each iteration it mines skills from the policy’s own rollouts — a global workflow from a group’s best successful rollout, step skills at critical points (after reading the README, after a failing test) — scores every rollout again with its group’s skills in context, and adds coef·Δ, Δ = log π(a | context + skill) − log π(a | context), to each token’s advantage.',
      ),
      h(
        'p',
        null,
        'Here core’s ',
        h('code', null, OPID_LAB_PRESET),
        ' preset trains live on this page’s device, shrunk to the browser (',
        h('code', null, request.sets.join(' ')),
        '). Its warm start is short, so few rollouts succeed: expect step skills from README reads and, until a rollout passes, no global skill.',
      ),
    ),
    h(LabTransport, {
      run,
      busy,
      blocked,
      onStart: start,
      onPause: pause,
      what: 'Train runs the SFT warm start, then RL iterations; the lab fills in after the first.',
    }),
    h(ErrorLine, { error }),
    last
      ? h(
          'p',
          {
            class: 'note',
            'data-testid': 'opid-lab-metrics',
            'data-skill-delta': String(last['policy/skill_delta']),
            'data-scored-frac': String(last['rollout/skill_scored_frac']),
          },
          `Iteration ${rlRows.at(-1)?.step}: mean Δ over scored tokens ${fmtSigned(last['policy/skill_delta'] ?? Number.NaN, 4)} (policy/skill_delta), ${fmt(100 * (last['rollout/skill_scored_frac'] ?? Number.NaN), 1)}% of action tokens scored with a skill, reward ${fmt(last['rollout/reward'] ?? Number.NaN, 3)}.`,
        )
      : null,
    state ? h(SkillsTable, { state }) : null,
    state
      ? h(
          'div',
          { class: 'gae-controls' },
          h(
            'label',
            null,
            'Rollout ',
            h(
              'select',
              { name: 'rollout', value: chosen, onChange: (e: Event) => setRollout(Number((e.target as HTMLSelectElement).value)) },
              state.rollouts.map((r) =>
                h('option', { key: r.index, value: r.index }, `#${r.rolloutId} · group ${r.groupId} · reward ${fmt(r.reward, 2)} · ${r.steps.length} steps`),
              ),
            ),
          ),
          h(Choice, {
            label: 'routing',
            value: OPID_LAB_ROUTINGS.indexOf(routing),
            options: OPID_LAB_ROUTINGS.map((r, i) => ({ value: i, text: ROUTING_TEXT[r] })),
            onChange: (i) => setRouting(OPID_LAB_ROUTINGS[i]),
          }),
        )
      : null,
    state
      ? h(
          'p',
          { class: 'note' },
          `The run routes with “${state.routing}”, coef = ${state.coef}. Rescoring uses the policy that sampled iteration ${state.iteration} (π_old), so “${state.routing}” gives back the Δ the trainer logged.`,
        )
      : null,
    state ? h(Steps, { state, rollout: chosen, answer }) : null,
    state ? h(DeviceLine, { answer, kernel: 'GPT forward and distillation', stale, testId: 'opid-lab-device' }) : null,
    h(ErrorLine, { error: rescoreError }),
    answer
      ? h(
          'p',
          { class: 'note', 'data-testid': 'opid-lab-summary' },
          `${ROUTING_TEXT[answer.request.routing]}: ${scored} of ${answer.tokens.length} action tokens scored with a skill; Σ Δ = ${fmtSigned(sum(answer.delta), 4)}; the advantage it adds, coef·Σ Δ = ${fmtSigned(answer.coef * sum(answer.delta), 6)}.`,
        )
      : null,
    answer ? h(DeltaStrip, { answer, values: answer.delta, label: 'per-token Δ under this routing', testId: 'opid-lab-strip' }) : null,
    answer ? h(TokenTable, { answer }) : null,
  );
}
