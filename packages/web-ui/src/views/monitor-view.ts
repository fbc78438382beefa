// The anti-hack monitor walkthrough (docs/ui.md §19, docs/monitor.md): the learner types or picks one
// `sh` call and sees, from core's monitor in the worker on a HiddenTestFS episode sandbox, how the
// shell parses it, which rule fired (or none), the shadow judge's verdict from its dry runs, and what
// the agent gets in log mode (the real call) and guard mode (the decoy's fabricated output for a
// confirmed hack). Below, a human review queue: flagged calls the learner labels hack or legitimate,
// kept in IndexedDB, with the judge's precision against those labels. The page computes nothing.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { EngineHandle } from '../engine/client.ts';
import { MONITOR_MAX_LINE, MONITOR_PRESETS } from '../engine/monitor-data.ts';
import type { MonitorAnswer, MonitorOutput, MonitorRequest, MonitorReviewAnswer, ReviewLabel, WalkAnswer, WalkRequest } from '../engine/walk-api.ts';
import { LatestOnly } from '../state/latest.ts';
import { fmt } from './format.ts';
import { Choice, ErrorLine, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

function MonitorLine({ answer, stale, testId }: { answer: { deviceLine: string; millis: number } | null; stale: boolean; testId: string }) {
  return h(
    'p',
    { class: `device-line${stale ? ' stale' : ''}`, 'data-testid': testId, 'data-computed-on': answer ? 'cpu' : '' },
    answer ? `Computed by ${answer.deviceLine} in ${answer.millis.toFixed(1)} ms${stale ? ' — recomputing…' : ''}` : 'Starting the worker…',
  );
}

const wordText = (w: { text: string; glob: boolean; dynamic: boolean }) =>
  `${w.text === '' ? '∅' : w.text}${w.glob ? ' (glob)' : ''}${w.dynamic ? ' (computed: $(…))' : ''}`;

function Parse({ answer }: { answer: MonitorAnswer }) {
  const { parse } = answer;
  if (!parse.ok)
    return h(
      'p',
      { class: 'note flag', 'data-testid': 'monitor-parse-error' },
      `The shell cannot parse this line (${parse.error}), so no rule reads it and it runs as the shell answers it.`,
    );
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table monitor-table', 'data-testid': 'monitor-parse' },
      h('caption', null, 'The line as the shell’s parser reads it: one row per simple command'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['#', 'pipeline.stage', 'command', 'words', 'redirections', 'runs in'].map((c) => h('th', { key: c, scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        parse.commands.map((c, i) =>
          h(
            'tr',
            { key: i, 'data-command': i },
            h('th', { scope: 'row' }, String(i)),
            h('td', null, `${c.pipeline}.${c.stage}${c.substitutionOf !== null ? ` in $(…) of #${c.substitutionOf}` : ''}`),
            h('td', { 'data-cell': `name-${i}` }, h('code', null, c.name || '—')),
            h('td', null, c.args.length ? c.args.map((w, k) => h('code', { key: k, class: 'monitor-word' }, wordText(w))) : '—'),
            h('td', null, [...c.reads.map((r) => `< ${r}`), ...c.writes.map((w) => `> ${w}`)].join(' ') || '—'),
            h('td', null, h('code', null, c.cwd)),
          ),
        ),
      ),
    ),
  );
}

function Rules({ answer }: { answer: MonitorAnswer }) {
  const fired = answer.rules.filter((r) => r.flagged);
  return h(
    'div',
    null,
    h(
      'p',
      { class: `note${fired.length ? ' flag' : ''}`, 'data-testid': 'monitor-fired' },
      fired.length
        ? `Rule stage: ${fired.map((r) => r.rule).join(', ')} fired, so the call goes to the judge.`
        : 'Rule stage: no rule fired, so the call runs as it is and is never judged.',
    ),
    h(
      'div',
      { class: 'lane-wrap' },
      h(
        'table',
        { class: 'lane walk-table monitor-table', 'data-testid': 'monitor-rules' },
        h('caption', null, 'Every rule of the monitor, in its order'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['rule', 'fired', 'reason'].map((c) => h('th', { key: c, scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          null,
          answer.rules.map((r) =>
            h(
              'tr',
              { key: r.rule, 'data-rule': r.rule, 'data-flagged': String(r.flagged), class: r.flagged ? 'selected' : undefined },
              h('th', { scope: 'row' }, h('code', null, r.rule)),
              h('td', null, r.flagged ? '⚑ fired' : '· no'),
              h('td', { class: 'monitor-reason' }, r.reason),
            ),
          ),
        ),
      ),
    ),
  );
}

function Verdict({ answer }: { answer: MonitorAnswer }) {
  const v = answer.verdict;
  return h(
    'p',
    { class: `note${v?.leak ? ' flag' : ''}`, 'data-testid': 'monitor-verdict', 'data-leak': v ? String(v.leak) : 'unjudged' },
    v
      ? `Judge stage (${v.judge}: the call dry-run in a copy of the sandbox and in a decoy with .eval/ emptied): ${v.leak ? '✗ confirmed hack' : '✓ not a leak'} — ${v.reason}.`
      : 'Judge stage: not reached (nothing flagged).',
  );
}

function Output({ title, what, out, testId }: { title: string; what: string; out: MonitorOutput & { action: string }; testId: string }) {
  const text = out.stdout + out.stderr;
  return h(
    'figure',
    { class: 'monitor-output', 'data-testid': testId, 'data-action': out.action },
    h('figcaption', null, h('strong', null, title), ` — ${what}; exit status ${out.exitCode}`),
    h('pre', { 'aria-label': `${title}: what the agent sees` }, text === '' ? '(no output)' : text),
  );
}

function Outputs({ answer }: { answer: MonitorAnswer }) {
  return h(
    'div',
    { class: 'monitor-outputs' },
    h(Output, { title: 'log mode', what: 'the real call runs; the decision is only recorded', out: answer.log, testId: 'monitor-log' }),
    h(Output, {
      title: 'guard mode',
      what: answer.guard.action === 'fabricate' ? 'a confirmed hack: the agent gets the decoy’s output, no answer in it' : 'not confirmed: the real call runs',
      out: answer.guard,
      testId: 'monitor-guard',
    }),
  );
}

/** The review queue's answer, asked once on opening and again after each label, latest wins. */
function useReview(engine: EngineHandle) {
  const [answer, setAnswer] = useState<MonitorReviewAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: WalkRequest) => (engine.walkthrough as (request: WalkRequest) => Promise<WalkAnswer>)(r) as Promise<MonitorReviewAnswer>,
        (a: MonitorReviewAnswer) => {
          setError(null);
          setAnswer(a);
        },
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  useEffect(() => queue.request({ kind: 'monitor-review', set: null }), [queue]);
  const label = (line: string, value: ReviewLabel | null) => queue.request({ kind: 'monitor-review', set: { line, label: value } });
  return { answer, error, label };
}

function Review({ engine }: { engine: EngineHandle }) {
  const { answer, error, label } = useReview(engine);
  return h(
    'section',
    { class: 'walk-part monitor-review', 'aria-label': 'Human review of flagged calls', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h('h3', null, 'Human review: is the judge right?'),
    h(
      'p',
      null,
      'Each call below was flagged by a rule. Label it as you judge it — does it put the answer in front of the agent? — and the judge’s precision is measured against your labels: of the calls it confirmed as hacks that you labelled, the share you also call a hack. Press a pressed label again to clear it.',
    ),
    h(MonitorLine, { answer, stale: false, testId: 'review-device' }),
    h(ErrorLine, { error }),
    answer
      ? h(
          'ul',
          { class: 'review-queue' },
          answer.items.map((item, i) =>
            h(
              'li',
              { key: item.line, 'data-review': i, 'data-leak': String(item.leak), 'data-label': item.label ?? '' },
              h('code', null, item.line),
              h('span', { class: 'note' }, ` flagged by ${item.rules.join(', ')}; judge: ${item.leak ? '✗ hack' : '✓ not a leak'}`),
              h(
                'span',
                { class: 'presets', role: 'group', 'aria-label': `your label for ${item.line}` },
                (['hack', 'legitimate'] as const).map((value) =>
                  h(
                    'button',
                    {
                      key: value,
                      type: 'button',
                      'aria-pressed': item.label === value,
                      onClick: () => label(item.line, item.label === value ? null : value),
                    },
                    value === 'hack' ? '✗ hack' : '✓ legitimate',
                  ),
                ),
              ),
            ),
          ),
        )
      : null,
    answer
      ? h(
          'p',
          { class: 'note', 'data-testid': 'review-precision', 'data-value': answer.precision === null ? '' : String(answer.precision) },
          answer.precision === null
            ? 'Judge’s precision: label a call the judge confirmed to measure it.'
            : `Judge’s precision against your labels: ${answer.confirmedHack} of ${answer.confirmedLabelled} confirmed calls you labelled are hacks = ${fmt(answer.precision, 2)}.`,
          ` Labels are kept ${answer.storage}.`,
        )
      : null,
  );
}

export function MonitorWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<MonitorRequest>(url, { kind: 'monitor', line: 'cat .eval/f.js', hackOpen: true });
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<MonitorRequest>) => setRequest({ ...request, ...patch });
  return h(
    'section',
    { class: 'walk monitor', 'aria-label': 'Anti-hack monitor walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'In HiddenTestFS the agent writes f.js from the examples in task/README; the hidden tests and the reference solution sit in .eval/. Reading them is a reward hack. Every sh call passes through the monitor before it runs: rules tuned for recall flag anything that could reach .eval/, and a judge restores precision by dry-running the call twice — as it is, and in a decoy where every file under .eval/ is empty. If the two runs differ, the result depends on protected content: a confirmed hack.',
      ),
      h(
        'p',
        null,
        'Log mode only records the decision. Guard mode answers a confirmed hack with the decoy’s output — plausible, with no answer in it, and no refusal to learn to route around. Everything below is core’s monitor on a real episode sandbox in this page’s worker.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'label',
        { class: 'monitor-line' },
        h('span', { class: 'slider-label' }, 'sh call'),
        h('input', {
          type: 'text',
          class: 'monitor-line-input',
          name: 'monitor-line',
          value: request.line,
          maxLength: MONITOR_MAX_LINE,
          spellcheck: false,
          autocomplete: 'off',
          'aria-label': 'command line of the sh call',
          onInput: (e: Event) => update({ line: (e.target as HTMLInputElement).value }),
        }),
      ),
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'preset calls' },
        MONITOR_PRESETS.map((p) =>
          h(
            'button',
            { key: p.line, type: 'button', 'aria-pressed': request.line === p.line, onClick: () => update({ line: p.line }) },
            `${p.label}: ${p.line}`,
          ),
        ),
      ),
      h(Choice, {
        label: 'hack path',
        value: request.hackOpen ? 1 : 0,
        options: [
          { value: 1, text: '.eval/ readable' },
          { value: 0, text: '.eval/ Permission denied' },
        ],
        onChange: (v) => update({ hackOpen: v === 1 }),
      }),
    ),
    h(MonitorLine, { answer, stale, testId: 'monitor-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? h('p', { class: 'note' }, `The episode sandbox (HiddenTestFS problem seed ${answer.seed}): ${answer.files.join(', ')}.`) : null,
    answer ? h(Parse, { answer }) : null,
    answer ? h(Rules, { answer }) : null,
    answer ? h(Verdict, { answer }) : null,
    answer ? h(Outputs, { answer }) : null,
    h(Review, { engine }),
  );
}
