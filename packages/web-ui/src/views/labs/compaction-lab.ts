// The compaction lab (docs/ui.md §26, docs/experiments/split-invariance.md): stream-ppo trained live
// in the worker (long-stream with compaction: the policy writes a summary when its context fills,
// and the episode goes on in a new context from it). One trajectory of an iteration, segment by
// segment, with its summaries, carried context and the trainer's per-token advantages across each
// cut; a slider splits it after any trained token, and the loss-aggregation kernel reduces its
// per-token losses uncut, as the run cut it and as the learner cut it, under every reducer:
// token-mean and per-rollout-mean do not move, the seq-mean reducers do.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { EngineHandle } from '../../engine/client.ts';
import {
  COMPACTION_LAB_DEFAULTS,
  COMPACTION_LAB_LIMITS,
  type CompactionLabSettings,
  compactionLabRequest,
  type LabTrajectory,
  labBatches,
  longestOfNewest,
  trajectories,
} from '../../engine/compaction-lab-data.ts';
import type { CompactionLabAnswer, CompactionLabRequest } from '../../engine/lab-walk-api.ts';
import type { WalkAnswer, WalkRequest } from '../../engine/walk-api.ts';
import { LatestOnly } from '../../state/latest.ts';
import { cliCommand } from '../../state/url-state.ts';
import { divergingColor, textOn } from '../colors.ts';
import { fmt } from '../format.ts';
import { RunBadge } from '../run-badge.ts';
import type { WalkUrl } from '../walk-parts.ts';
import { useLabSettings } from './lab-url.ts';
import { labPosition, useLabRuns, withCode } from './live-lab.ts';
import { NumberField } from './number-field.ts';

/** Equal to float32 precision: what "the loss did not move" means for a kernel's sum. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));

const KIND_TEXT: Record<string, string> = { p: 'prompt', a: 'action', o: 'observation', s: 'summary', c: 'carried context', u: 'user', f: 'fabricated' };

const REDUCER_TEXT: Record<string, string> = {
  'token-mean': 'Σ m·L / Σ m over the batch',
  'per-rollout-mean': 'each rollout’s tokens over its own count, all segments together, then the mean over rollouts',
  'seq-mean-token-mean': 'the mean over rows of each row’s token mean',
  'seq-mean-token-sum-norm': 'the mean over rows of each row’s sum / C',
};

/** One segment's tokens as chips: trained ones shaded by their advantage, with a sign glyph; the learner's cut as ✂. */
function Segment({ trajectory, k, cut, first }: { trajectory: LabTrajectory; k: number; cut: number; first: number }) {
  const segment = trajectory.segments[k];
  const scale = Math.max(1e-9, ...trajectory.advantages.map(Math.abs));
  let trained = first;
  return h(
    'div',
    { class: 'lab-segment', 'data-segment': String(k) },
    h('h4', null, `segment ${k + 1}/${trajectory.segments.length}`, h('small', null, ` — ${segment.tokensAfter} trained tokens after it`)),
    h(
      'p',
      { class: 'strip', role: 'list', 'aria-label': `segment ${k + 1} tokens` },
      segment.tokens.map((tok, t) => {
        if (tok.kind === 'p') return null; // the task prompt, the same in every segment
        const index = tok.advantage === null ? -1 : trained++;
        const a = tok.advantage;
        const style = a === null ? undefined : { background: divergingColor(a / scale), color: textOn(a / scale) };
        return h(
          'span',
          { key: t, role: 'listitem', class: 'lab-tok-wrap' },
          index === cut ? h('span', { class: 'lab-cut', 'aria-label': 'your cut' }, '✂') : null,
          h(
            'span',
            {
              class: `tok ${a === null ? (tok.kind === 'c' ? 'tok-prompt' : 'tok-observation') : `tok-action ${a > 0 ? 'sign-pos' : a < 0 ? 'sign-neg' : ''}`} lab-kind-${tok.kind}`,
              style,
              title: `${KIND_TEXT[tok.kind] ?? tok.kind}${a === null ? '' : `, trained token ${index}: A = ${fmt(a, 4)}`}`,
              ...(a === null ? {} : { 'data-adv': String(a), 'data-index': String(index) }),
            },
            tok.text === '\n' ? '↵' : tok.text,
          ),
        );
      }),
    ),
  );
}

function LossTable({ answer }: { answer: CompactionLabAnswer }) {
  const names = answer.request.batches.map((b) => b.name);
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'compaction-lab-losses' },
      h('caption', null, `The trajectory’s loss (L = −A per trained token) under each reducer, by the aggregation kernel; C = ${answer.request.constant}`),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'rl.lossAggregation'),
          h('th', { scope: 'col' }, 'what it averages'),
          names.map((n) => h('th', { key: n, scope: 'col' }, n)),
          h('th', { scope: 'col' }, 'your cut vs uncut'),
        ),
      ),
      h(
        'tbody',
        null,
        answer.losses.map((l) =>
          h(
            'tr',
            { key: l.mode, 'data-reducer': l.mode, 'data-same': String(same(l.values[0], l.values[2])) },
            h('th', { scope: 'row' }, h('code', null, l.mode)),
            h('td', { class: 'monitor-reason' }, REDUCER_TEXT[l.mode]),
            l.values.map((v, b) => h('td', { key: b, 'data-batch': String(b), 'data-value': String(v) }, fmt(v, 6))),
            h('td', null, same(l.values[0], l.values[2]) ? '✓ unchanged' : `✗ changed by ${fmt(l.values[2] - l.values[0], 6)}`),
          ),
        ),
      ),
    ),
  );
}

function useLabLoss(engine: EngineHandle, request: CompactionLabRequest | null) {
  const [answer, setAnswer] = useState<CompactionLabAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const queue = useMemo(
    () =>
      new LatestOnly(
        (r: WalkRequest) => (engine.walkthrough as (request: WalkRequest) => Promise<WalkAnswer>)(r) as Promise<CompactionLabAnswer>,
        (a: CompactionLabAnswer) => {
          setError(null);
          setAnswer(a);
        },
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  const key = request ? JSON.stringify(request) : '';
  useEffect(() => {
    if (request) queue.request(request);
  }, [queue, key]);
  const stale = answer !== null && JSON.stringify(answer.request) !== key;
  return { answer: request ? answer : null, error, stale };
}

function TrajectoryView({ engine, all }: { engine: EngineHandle; all: LabTrajectory[] }) {
  const steps = [...new Set(all.map((t) => t.step))];
  const [pick, setPick] = useState<{ step: number; rolloutId: number } | null>(null);
  const chosen = (pick && all.find((t) => t.step === pick.step && t.rolloutId === pick.rolloutId)) || longestOfNewest(all);
  const n = chosen?.advantages.length ?? 0;
  const [cutText, setCut] = useState<number | null>(null);
  const cut = Math.min(Math.max(1, cutText ?? chosen?.runCuts[0] ?? Math.floor(n / 2)), Math.max(1, n - 1));
  const request = useMemo<CompactionLabRequest | null>(() => {
    if (!chosen || n < 2) return null;
    return { kind: 'compaction-lab', batches: labBatches(chosen, [], cut), constant: n };
  }, [chosen, cut, n]);
  const { answer, error, stale } = useLabLoss(engine, request);
  if (!chosen) return h('p', { class: 'note' }, 'The trajectories appear here after the first RL iteration.');
  const step = chosen.step;
  const firsts: number[] = [];
  let count = 0;
  for (const s of chosen.segments) {
    firsts.push(count);
    count += s.tokens.filter((t) => t.advantage !== null).length;
  }
  return h(
    'div',
    { class: 'lab-trajectory', 'data-step': String(step), 'data-rollout': String(chosen.rolloutId) },
    h(
      'label',
      null,
      'Iteration ',
      h(
        'select',
        {
          name: 'compaction-step',
          value: String(step),
          onChange: (e: Event) => {
            const s = Number((e.target as HTMLSelectElement).value);
            const best = longestOfNewest(all.filter((t) => t.step === s));
            if (best) setPick({ step: s, rolloutId: best.rolloutId });
            setCut(null);
          },
        },
        steps.map((s) => h('option', { key: s, value: String(s) }, String(s))),
      ),
    ),
    h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': 'trajectories of the iteration' },
      all
        .filter((t) => t.step === step)
        .map((t) =>
          h(
            'button',
            {
              key: t.rolloutId,
              type: 'button',
              'aria-pressed': t.rolloutId === chosen.rolloutId,
              onClick: () => {
                setPick({ step, rolloutId: t.rolloutId });
                setCut(null);
              },
            },
            `rollout ${t.rolloutId}: ${t.segments.length} segment${t.segments.length === 1 ? '' : 's'}, ${t.advantages.length} trained tokens`,
          ),
        ),
    ),
    chosen.segments.map((_, k) => h(Segment, { key: k, trajectory: chosen, k, cut, first: firsts[k] })),
    n < 2
      ? h('p', { class: 'note' }, 'This trajectory has fewer than two trained tokens: there is nowhere to cut it.')
      : h(
          'label',
          { class: 'slider' },
          h('span', { class: 'slider-label' }, 'cut after trained token = ', h('output', { 'data-testid': 'compaction-lab-cut' }, String(cut))),
          h('input', {
            type: 'range',
            name: 'compaction-lab-cut',
            min: 1,
            max: n - 1,
            step: 1,
            value: cut,
            'aria-label': 'cut after trained token',
            onInput: (e: Event) => setCut(Number((e.target as HTMLInputElement).value)),
          }),
          h('span', { class: 'slider-help' }, `of ${n}; the run cut after ${chosen.runCuts.length > 0 ? chosen.runCuts.join(', ') : 'none (one segment)'}`),
        ),
    h(
      'p',
      { class: `device-line${stale ? ' stale' : ''}`, 'data-testid': 'compaction-lab-device', 'data-computed-on': answer?.computedOn ?? '' },
      answer
        ? `${answer.computedOn === 'gpu' ? 'Computed by the loss-aggregation kernel (WGSL) on' : 'Computed by'} ${answer.deviceLine} in ${answer.millis.toFixed(1)} ms${stale ? ' — recomputing…' : ''}`
        : 'Reducing…',
    ),
    h('p', { class: 'error', role: 'alert', hidden: error === null }, error ?? ''),
    answer ? h(LossTable, { answer }) : null,
  );
}

export function CompactionLab({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [settings, setSettings, problem] = useLabSettings<CompactionLabSettings>(url, 'compaction-lab', COMPACTION_LAB_DEFAULTS, COMPACTION_LAB_LIMITS);
  const { runs, error, busy, start, pause, resume } = useLabRuns(engine, 'compaction');
  const run = runs.stream;
  const request = compactionLabRequest(settings);
  const all = useMemo(() => trajectories(run?.samples ?? []), [run?.samples]);
  return h(
    'section',
    { class: 'walk lab compaction-lab', 'aria-label': 'Compaction lab' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        withCode(
          'long-stream: the agent reads a stream of digits one `next` call at a time and answers their sum mod 10, in a context of 64 tokens that cannot hold the stream. When the context fills, the policy writes a summary (`<summary>d</summary>`, its running sum) and the episode goes on in a fresh context that starts from it. This lab trains the stream-ppo preset live in this tab’s worker, cut to a tab’s budget.',
        ),
      ),
      h(
        'p',
        null,
        'Below, one trajectory of the newest iteration, segment by segment: grey dashed chips are carried context (trained in the segment that wrote them), shaded chips are the tokens this segment trains — actions and the summary the policy wrote — with the trainer’s advantage. Move the cut: a token-mean loss cannot tell one row from two.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(NumberField, {
        name: 'compaction-sft',
        label: 'SFT steps',
        value: settings.sftSteps,
        range: COMPACTION_LAB_LIMITS.sftSteps,
        onChange: (v) => setSettings({ ...settings, sftSteps: v }),
      }),
      h(NumberField, {
        name: 'compaction-iterations',
        label: 'RL iterations',
        value: settings.iterations,
        range: COMPACTION_LAB_LIMITS.iterations,
        onChange: (v) => setSettings({ ...settings, iterations: v }),
      }),
      h(NumberField, {
        name: 'compaction-seed',
        label: 'seed',
        value: settings.seed,
        range: COMPACTION_LAB_LIMITS.seed,
        onChange: (v) => setSettings({ ...settings, seed: v }),
      }),
      h('button', { type: 'button', class: 'primary', disabled: busy, onClick: () => void start('stream', request) }, '▶ Train'),
      run?.state === 'running'
        ? h('button', { type: 'button', onClick: () => void pause() }, '❚❚ Pause')
        : run?.state === 'paused'
          ? h('button', { type: 'button', onClick: () => void resume() }, '▶ Resume')
          : null,
    ),
    h(
      'p',
      { class: 'note' },
      'The same run headless: ',
      h('code', { 'data-testid': 'compaction-lab-cli' }, cliCommand(request.recipe, request.seed, request.sets)),
    ),
    h('p', { class: 'error', role: 'alert', hidden: problem === null && error === null }, [problem, error].filter(Boolean).join(' ')),
    h(
      'p',
      { 'data-testid': 'compaction-lab-status' },
      h(RunBadge, {
        info: run ? { state: run.state, why: run.message ?? `${labPosition(run)}.` } : { state: 'idle', why: 'Not trained yet in this page.' },
        scope: 'lab run',
        testId: 'compaction-lab-badge',
      }),
      run ? ` ${labPosition(run)}` : '',
    ),
    run ? h(TrajectoryView, { key: run.runId, engine, all }) : h('p', { class: 'note' }, 'Press Train to start the run.'),
  );
}
