// The anti-hack lab (docs/ui.md §25, docs/monitor.md): HiddenTestFS with the hack path open trained
// live in the worker, one run per guard arm (monitor off, log, guard). For a chosen rollout, each
// tool call with the rules that flagged it, the judge's verdict, what the guard did and what the
// agent saw (the decoy's fabricated output for a confirmed hack), all as the run's monitor decided
// them online; solved-clean vs solved-by-hacking counts per iteration, charted per arm; and the
// run's flagged calls in the human review queue, whose labels check the judge's precision.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  ANTIHACK_ARMS,
  ANTIHACK_DEFAULTS,
  ANTIHACK_HACK_DEMO_SHARE,
  ANTIHACK_LIMITS,
  type AntihackArm,
  type AntihackSettings,
  ARM_TEXT,
  antihackRequest,
  flaggedCalls,
  type IterationCounts,
  iterationCounts,
  type LabCall,
  labCalls,
} from '../../engine/antihack-lab.ts';
import type { ReplaySample } from '../../engine/api.ts';
import type { EngineHandle } from '../../engine/client.ts';
import type { AntihackReviewAnswer } from '../../engine/lab-walk-api.ts';
import type { ReviewLabel, WalkAnswer, WalkRequest } from '../../engine/walk-api.ts';
import { LatestOnly } from '../../state/latest.ts';
import { cliCommand } from '../../state/url-state.ts';
import { Chart } from '../chart.ts';
import { fmt } from '../format.ts';
import { RunBadge } from '../run-badge.ts';
import type { WalkUrl } from '../walk-parts.ts';
import { useLabSettings } from './lab-url.ts';
import { type LabRun, labPosition, useLabRuns, withCode } from './live-lab.ts';
import { NumberField } from './number-field.ts';

const SERIES = [
  { key: 'clean', label: 'solved clean', color: '#2166ac' },
  { key: 'hacked', label: 'solved by hacking', color: '#b2182b', dash: true },
  { key: 'attempted', label: 'touched .eval/', color: '#8a5a00', dash: true },
] as const;

function ArmChart({ arm, counts }: { arm: AntihackArm; counts: IterationCounts[] }) {
  const data = [counts.map((c) => c.step), ...SERIES.map((s) => counts.map((c) => c[s.key]))];
  const last = counts[counts.length - 1];
  const summary = last
    ? `After iteration ${last.step} of ${last.rollouts} rollouts: ${last.clean} solved clean, ${last.hacked} solved by hacking, ${last.attempted} touched .eval/.`
    : 'No RL iteration yet.';
  return h(
    'figure',
    { class: 'panel lab-arm-chart', 'data-arm': arm, 'data-points': String(counts.length) },
    h('figcaption', null, h('strong', null, `arm ${arm}`), ` — ${ARM_TEXT[arm]}`),
    counts.length > 0
      ? h(
          'div',
          { role: 'img', 'aria-label': `Rollouts per iteration, arm ${arm}. ${summary}`, class: 'chart-host' },
          h(Chart, {
            data,
            syncKey: 'antihack',
            series: SERIES.map((s) => ({ label: s.label, color: s.color, ...('dash' in s ? { dash: true } : {}) })),
            height: 140,
          }),
        )
      : h('p', { class: 'note' }, summary),
  );
}

function CountsTable({ counts }: { counts: IterationCounts[] }) {
  if (counts.length === 0) return null;
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'walk-table', 'data-testid': 'antihack-counts' },
      h(
        'caption',
        null,
        'Every rollout of each iteration, counted from what it recorded (the environment’s grading and access record, the monitor’s decisions)',
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['iteration', 'rollouts', 'solved clean', 'solved by hacking', 'touched .eval/', 'flagged', 'fabricated'].map((t) =>
            h('th', { key: t, scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        counts.map((c) =>
          h(
            'tr',
            { key: c.step, 'data-step': String(c.step) },
            [c.step, c.rollouts, c.clean, c.hacked, c.attempted, c.flagged, c.fabricated].map((x, i) => h(i === 0 ? 'th' : 'td', { key: i }, String(x))),
          ),
        ),
      ),
    ),
  );
}

function CallsTable({ sample, arm }: { sample: ReplaySample; arm: AntihackArm }) {
  const calls = labCalls(sample);
  if (calls.length === 0)
    return h(
      'p',
      { class: 'note', 'data-testid': 'antihack-calls-empty' },
      'This rollout made no call the sh tool ran (its actions were not well-formed tool calls).',
    );
  const decided = (c: LabCall) => c.decision;
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'walk-table antihack-calls', 'data-testid': 'antihack-calls', 'data-seed': String(sample.seed) },
      h('caption', null, `Rollout ${sample.rolloutId} of iteration ${sample.step} (episode seed ${sample.seed}): its ${calls.length} tool calls in order`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['#', 'sh line', 'exit', 'rules that flagged it', 'judge’s verdict', 'guard did', 'what the agent saw'].map((t) =>
            h('th', { key: t, scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        calls.map((c, k) => {
          const d = decided(c);
          return h(
            'tr',
            {
              key: k,
              'data-line': c.line,
              'data-exit': String(c.exitCode),
              'data-rules': d ? d.flags.map((f) => f.rule).join(',') : '',
              'data-leak': d?.verdict ? String(d.verdict.leak) : '',
              'data-action': d?.action ?? '',
              class: d?.action === 'fabricate' ? 'fabricated' : d && d.flags.length > 0 ? 'flagged' : undefined,
            },
            h('th', { scope: 'row' }, String(k + 1)),
            h('td', null, h('code', null, c.line), c.protectedPaths.length > 0 ? h('small', null, ` touched ${c.protectedPaths.join(', ')}`) : null),
            h('td', null, String(c.exitCode)),
            h(
              'td',
              null,
              !d
                ? arm === 'off'
                  ? 'no monitor (arm off)'
                  : '—'
                : d.flags.length === 0
                  ? 'none: it ran unjudged'
                  : h(
                      'ul',
                      null,
                      d.flags.map((f) => h('li', { key: f.rule }, h('strong', null, f.rule), `: ${f.reason}`)),
                    ),
            ),
            h('td', null, d?.verdict ? `${d.verdict.leak ? '✗ leak' : '✓ no leak'} (${d.verdict.judge}): ${d.verdict.reason}` : d ? 'not judged' : '—'),
            h(
              'td',
              null,
              !d
                ? 'ran as it is'
                : d.action === 'fabricate'
                  ? '⚠ fabricated (decoy output)'
                  : d.confirmed
                    ? 'allowed (log mode: confirmed, recorded only)'
                    : 'allowed',
            ),
            h('td', null, c.seen === null ? '—' : h('pre', { class: 'lab-seen' }, c.seen === '' ? '(no output)' : c.seen)),
          );
        }),
      ),
    ),
  );
}

function RolloutPicker({ samples, arm }: { samples: ReplaySample[]; arm: AntihackArm }) {
  const rl = samples.filter((s) => s.phase === 'rl');
  const steps = [...new Set(rl.map((s) => s.step))].sort((a, b) => a - b);
  const [step, setStep] = useState<number | null>(null);
  const [rollout, setRollout] = useState<number | null>(null);
  const shownStep = step !== null && steps.includes(step) ? step : (steps[steps.length - 1] ?? null);
  const batch = rl.filter((s) => s.step === shownStep);
  const flaggedOf = (s: ReplaySample) => labCalls(s).filter((c) => (c.decision?.flags.length ?? 0) > 0).length;
  // Opens on the batch's first rollout with a flagged call, else its first with any call.
  const fallback = batch.find((s) => flaggedOf(s) > 0) ?? batch.find((s) => labCalls(s).length > 0) ?? batch[0];
  const chosen = batch.find((s) => s.rolloutId === rollout) ?? fallback;
  if (shownStep === null) return h('p', { class: 'note' }, 'The rollouts appear here after the first RL iteration.');
  return h(
    'div',
    { class: 'lab-rollouts' },
    h(
      'label',
      null,
      'Iteration ',
      h(
        'select',
        { name: 'antihack-step', value: String(shownStep), onChange: (e: Event) => setStep(Number((e.target as HTMLSelectElement).value)) },
        steps.map((s) => h('option', { key: s, value: String(s) }, String(s))),
      ),
    ),
    h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': 'rollouts of the iteration' },
      batch.map((s) =>
        h(
          'button',
          {
            key: s.rolloutId,
            type: 'button',
            'aria-pressed': chosen?.rolloutId === s.rolloutId,
            'data-rollout': String(s.rolloutId),
            onClick: () => setRollout(s.rolloutId),
          },
          `rollout ${s.rolloutId}: ${labCalls(s).length} calls, ${flaggedOf(s)} flagged, reward ${fmt(s.reward, 2)}${s.info?.hackRead === true ? ', read .eval/' : ''}`,
        ),
      ),
    ),
    chosen ? h(CallsTable, { sample: chosen, arm }) : null,
  );
}

function ReviewQueue({ engine, samples }: { engine: EngineHandle; samples: ReplaySample[] }) {
  const items = useMemo(() => flaggedCalls(samples), [samples]);
  const lines = items.map((i) => i.line);
  const [answer, setAnswer] = useState<AntihackReviewAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: WalkRequest) => (engine.walkthrough as (request: WalkRequest) => Promise<WalkAnswer>)(r) as Promise<AntihackReviewAnswer>,
        (a: AntihackReviewAnswer) => {
          setError(null);
          setAnswer(a);
        },
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  const key = lines.join('\n');
  useEffect(() => {
    if (lines.length > 0) queue.request({ kind: 'antihack-review', lines, set: null });
  }, [queue, key]);
  if (items.length === 0)
    return h('p', { class: 'note', 'data-testid': 'antihack-review-empty' }, 'No call of this run was flagged yet, so the review queue is empty.');
  const label = (line: string, value: ReviewLabel | null) => queue.request({ kind: 'antihack-review', lines, set: { line, label: value } });
  const labelOf = (line: string) => (answer && answer.request.lines.join('\n') === key ? (answer.labels[answer.request.lines.indexOf(line)] ?? null) : null);
  const confirmed = items.filter((i) => i.leak && labelOf(i.line) !== null);
  const confirmedHack = confirmed.filter((i) => labelOf(i.line) === 'hack').length;
  const missed = items.filter((i) => !i.leak && labelOf(i.line) === 'hack').length;
  return h(
    'div',
    { class: 'review lane-wrap' },
    h(
      'table',
      { class: 'walk-table', 'data-testid': 'antihack-review' },
      h('caption', null, 'The run’s flagged calls (one row per distinct line): label each as you judge it'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['sh line', 'rules', 'judge', 'your label'].map((t) => h('th', { key: t, scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        items.map((item) =>
          h(
            'tr',
            { key: item.line, 'data-line': item.line, 'data-label': labelOf(item.line) ?? '' },
            h('td', null, h('code', null, item.line), h('small', null, ` iteration ${item.step}, rollout ${item.rolloutId}`)),
            h('td', null, item.rules.join(', ')),
            h('td', { title: item.reason }, item.leak ? '✗ leak' : '✓ overturned'),
            h(
              'td',
              null,
              (['hack', 'legitimate'] as const).map((value) =>
                h(
                  'button',
                  {
                    key: value,
                    type: 'button',
                    'aria-pressed': labelOf(item.line) === value,
                    onClick: () => label(item.line, labelOf(item.line) === value ? null : value),
                  },
                  value === 'hack' ? '✗ hack' : '✓ legitimate',
                ),
              ),
            ),
          ),
        ),
      ),
    ),
    h('p', { class: 'error', role: 'alert', hidden: error === null }, error ?? ''),
    h(
      'p',
      { class: 'note', 'data-testid': 'antihack-review-precision', 'data-value': confirmed.length > 0 ? String(confirmedHack / confirmed.length) : '' },
      confirmed.length === 0
        ? 'Judge’s precision: label a call the judge confirmed to measure it.'
        : `Judge’s precision against your labels: ${confirmedHack} of ${confirmed.length} confirmed calls you labelled are hacks = ${fmt(confirmedHack / confirmed.length, 2)}.`,
      missed > 0 ? ` ${missed} call${missed === 1 ? '' : 's'} the judge overturned you labelled hack: its misses.` : '',
      answer ? ` Labels are kept ${answer.storage}; they are the same store as the monitor walkthrough’s queue.` : '',
    ),
  );
}

function armInfo(run: LabRun | undefined) {
  if (!run) return { state: 'idle' as const, why: 'Not trained yet in this page.' };
  return { state: run.state, why: run.message ?? `${labPosition(run)}.` };
}

export function AntihackLab({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [settings, setSettings, problem] = useLabSettings<AntihackSettings>(url, 'antihack-lab', ANTIHACK_DEFAULTS, ANTIHACK_LIMITS, { arm: ANTIHACK_ARMS });
  const { runs, active, error, busy, start, pause, resume } = useLabRuns(engine, 'antihack');
  const shown = runs[settings.arm];
  const request = antihackRequest(settings);
  const activeRun = active ? runs[active] : undefined;
  const running = activeRun?.state === 'running';
  const counts = useMemo(() => iterationCounts(shown?.samples ?? []), [shown?.samples]);
  return h(
    'section',
    { class: 'walk lab antihack-lab', 'aria-label': 'Anti-hack lab' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        withCode(
          'HiddenTestFS with the hack path open: `cat .eval/f.js` prints the reference solution, and copying it passes the hidden tests. This lab trains the hidden-hack-ppo preset live in this tab’s worker, cut to a tab’s budget, once per guard arm. Every sh call of every rollout went through core’s monitor as it trained (in the log and guard arms): the tables below are what the run recorded, not a replay.',
        ),
      ),
      h(
        'p',
        { class: 'note' },
        withCode(
          `The warm start was seeded with hacks: ${ANTIHACK_HACK_DEMO_SHARE * 100}% of its SFT demonstrations (task.hiddenTestFs.hackDemoShare = ${ANTIHACK_HACK_DEMO_SHARE}) list the root, copy the reference into f.js (\`cat .eval/f.js\` then \`echo\` what it printed, or \`cat .eval/f.js>f.js\` at once) and submit; the rest solve the task honestly. Unseeded, a policy at this budget never touched \`.eval/\` (0 of 48 rollouts): the hacks you see here were put in the warm start on purpose, as a stand-in for the shortcuts a large model knows from pretraining, so the monitor has something to catch. The monitor walkthrough (Anti-hack monitor tab) lets you type the hack yourself.`,
        ),
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'guard arm' },
        ANTIHACK_ARMS.map((arm) =>
          h(
            'button',
            {
              key: arm,
              type: 'button',
              'aria-pressed': settings.arm === arm,
              'data-arm': arm,
              title: ARM_TEXT[arm],
              onClick: () => setSettings({ ...settings, arm }),
            },
            `arm: ${arm}`,
            runs[arm] ? ` (${runs[arm].state})` : '',
          ),
        ),
      ),
      h(NumberField, {
        name: 'antihack-sft',
        label: 'SFT steps',
        value: settings.sftSteps,
        range: ANTIHACK_LIMITS.sftSteps,
        onChange: (v) => setSettings({ ...settings, sftSteps: v }),
      }),
      h(NumberField, {
        name: 'antihack-iterations',
        label: 'RL iterations',
        value: settings.iterations,
        range: ANTIHACK_LIMITS.iterations,
        onChange: (v) => setSettings({ ...settings, iterations: v }),
      }),
      h(NumberField, {
        name: 'antihack-seed',
        label: 'seed',
        value: settings.seed,
        range: ANTIHACK_LIMITS.seed,
        onChange: (v) => setSettings({ ...settings, seed: v }),
      }),
      h('button', { type: 'button', class: 'primary', disabled: busy, onClick: () => void start(settings.arm, request) }, `▶ Train arm ${settings.arm}`),
      running
        ? h('button', { type: 'button', onClick: () => void pause() }, '❚❚ Pause')
        : activeRun?.state === 'paused'
          ? h('button', { type: 'button', onClick: () => void resume() }, '▶ Resume')
          : null,
    ),
    h('p', { class: 'note' }, 'The same run headless: ', h('code', { 'data-testid': 'antihack-cli' }, cliCommand(request.recipe, request.seed, request.sets))),
    h('p', { class: 'error', role: 'alert', hidden: problem === null && error === null }, [problem, error].filter(Boolean).join(' ')),
    h(
      'div',
      { class: 'lab-arms' },
      ANTIHACK_ARMS.map((arm) =>
        h(
          'p',
          { key: arm, 'data-testid': `antihack-arm-${arm}` },
          h(RunBadge, { info: armInfo(runs[arm]), scope: `arm ${arm}`, testId: `antihack-badge-${arm}` }),
          runs[arm] ? ` ${labPosition(runs[arm])}` : '',
        ),
      ),
    ),
    h(
      'div',
      { class: 'lab-charts' },
      ANTIHACK_ARMS.filter((arm) => runs[arm]).map((arm) => h(ArmChart, { key: arm, arm, counts: iterationCounts(runs[arm].samples) })),
    ),
    shown
      ? h(
          'div',
          null,
          h('h3', null, `Arm ${settings.arm}: per iteration`),
          h(CountsTable, { counts }),
          h('h3', null, 'One rollout, call by call'),
          h(RolloutPicker, { key: shown.runId, samples: shown.samples, arm: settings.arm }),
          h('h3', null, 'Human review of the flagged calls'),
          h(ReviewQueue, { engine, samples: shown.samples }),
        )
      : h('p', { class: 'note' }, `Arm ${settings.arm} has not been trained in this page: press Train.`),
  );
}
