// Dashboard of small multiples (docs/ui.md §8): one chart per headline metric, the warm start's
// SFT loss first, then evaluation success (held-out and OOD, the README's headline number), then
// the RL phase's metrics on the same x (iteration) with a shared cursor. Each title carries the
// glossary's definition and what a healthy value looks like (core/metrics/glossary.ts). Several
// runs overlay on one set of charts (docs/ui.md §14), one line style per run.

import { METRICS, type MetricDefinition, type MetricName, type MetricsRecord, type Phase } from '@horizon/core';
import { h } from 'preact';
import { useMemo } from 'preact/hooks';
import { Chart, type ChartSeries } from './chart.ts';
import { fmt } from './format.ts';

export interface PanelSpec {
  /** The panel's main metric (data-metric, the glossary tip). */
  key: MetricName;
  title: string;
  /** Which rows it reads: SFT steps, RL iterations, or evaluations (x = iteration, 0 = after SFT). */
  phase: Phase;
  series: readonly { name: MetricName; label: string }[];
  /** Drop a series that repeats the first one point for point (reward = success on addition). */
  dropRepeats?: boolean;
}

export const PANELS: readonly PanelSpec[] = [
  { key: 'sft/loss', title: 'SFT loss', phase: 'sft', series: [{ name: 'sft/loss', label: 'SFT loss' }] },
  {
    key: 'eval/held_out_success',
    title: 'Evaluation success',
    phase: 'eval',
    series: [
      { name: 'eval/held_out_success', label: 'held-out' },
      { name: 'eval/ood_success', label: 'OOD' },
    ],
  },
  {
    key: 'rollout/reward',
    title: 'Reward',
    phase: 'rl',
    series: [
      { name: 'rollout/reward', label: 'reward' },
      { name: 'rollout/success', label: 'success' },
    ],
    dropRepeats: true,
  },
  { key: 'policy/kl', title: 'KL to reference', phase: 'rl', series: [{ name: 'policy/kl', label: 'KL' }] },
  { key: 'policy/entropy', title: 'Entropy', phase: 'rl', series: [{ name: 'policy/entropy', label: 'entropy' }] },
  { key: 'policy/clip_frac', title: 'Clip fraction', phase: 'rl', series: [{ name: 'policy/clip_frac', label: 'clip fraction' }] },
  { key: 'critic/value_loss', title: 'Value loss', phase: 'rl', series: [{ name: 'critic/value_loss', label: 'value loss' }] },
  { key: 'critic/explained_var', title: 'Explained variance', phase: 'rl', series: [{ name: 'critic/explained_var', label: 'explained variance' }] },
  { key: 'perf/tokens_per_s', title: 'Tokens / s', phase: 'rl', series: [{ name: 'perf/tokens_per_s', label: 'tokens/s' }] },
];

// Tableau-10 hues, one per chart, so a chart is recognisable at a glance in a screenshot.
const COLORS = ['#4e79a7', '#59a14f', '#e15759', '#b07aa1', '#f28e2b', '#76b7b2', '#edc948', '#9c755f', '#ff9da7'];
/** Overlaid runs: one hue per run, and a line style per run as the second channel. */
export const RUN_COLORS = ['#2166ac', '#b2182b', '#1b7a3a', '#8a5a00'];

/** [steps, values] of one metric over the rows of `phase`, in log order. */
export function metricSeries(records: readonly MetricsRecord[], name: MetricName, phase: Phase = 'rl'): [number[], number[]] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const r of records) {
    if (r.phase !== phase) continue;
    const v = r.metrics[name];
    if (v === undefined) continue;
    xs.push(r.step);
    ys.push(v);
  }
  return [xs, ys];
}

/** Several series on one x: the union of their steps, null where a series has no point. */
export function alignSeries(parts: readonly [number[], number[]][]): (number | null)[][] {
  const xs = [...new Set(parts.flatMap(([x]) => x))].sort((a, b) => a - b);
  const at = new Map(xs.map((x, i) => [x, i]));
  const ys = parts.map(([x, y]) => {
    const out: (number | null)[] = new Array(xs.length).fill(null);
    x.forEach((s, i) => {
      out[at.get(s)!] = y[i];
    });
    return out;
  });
  return [xs, ...ys];
}

const same = (a: [number[], number[]], b: [number[], number[]]) =>
  a[0].length === b[0].length && a[0].every((x, i) => x === b[0][i] && Object.is(a[1][i], b[1][i]));

/** A sentence for screen readers and the figure's caption: what the chart shows. */
export function describeSeries(label: string, [xs, ys]: [number[], number[]]): string {
  if (xs.length === 0) return `${label}: no points yet.`;
  const finite = ys.filter(Number.isFinite);
  const range = finite.length ? `, lowest ${fmt(Math.min(...finite))}, highest ${fmt(Math.max(...finite))}` : '';
  return `${label}: ${xs.length} point${xs.length === 1 ? '' : 's'} from step ${xs[0]} to ${xs.at(-1)}, first ${fmt(ys[0])}, last ${fmt(ys.at(-1)!)}${range}.`;
}

function GlossaryTitle({ name, title }: { name: MetricName; title: string }) {
  const def: MetricDefinition = METRICS[name];
  const id = `gloss-${name.replace('/', '-')}`;
  return h(
    'div',
    { class: 'metric-title' },
    h('button', { type: 'button', class: 'gloss-trigger', 'aria-describedby': id }, title, h('span', { class: 'gloss-mark', 'aria-hidden': 'true' }, 'i')),
    h(
      'div',
      { class: 'gloss-tip', role: 'tooltip', id },
      h('code', null, name),
      ` — ${def.doc}. Unit: ${def.unit}.`,
      def.better ? ` ${def.better === 'higher' ? 'Higher' : 'Lower'} is better.` : '',
      def.healthy ? h('span', { class: 'healthy', 'data-testid': 'healthy' }, ` Healthy: ${def.healthy}`) : null,
    ),
  );
}

/** One run's rows, as the dashboard overlays them. */
export interface DashboardRun {
  label: string;
  records: readonly MetricsRecord[];
}

function Panel({
  spec,
  runs,
  color,
  onPick,
}: {
  spec: PanelSpec;
  runs: readonly DashboardRun[];
  color: string;
  onPick?: (phase: Phase, step: number) => void;
}) {
  const overlay = runs.length > 1;
  const built = useMemo(() => {
    const parts: { series: ChartSeries; data: [number[], number[]] }[] = [];
    runs.forEach((run, r) => {
      const first = metricSeries(run.records, spec.series[0].name, spec.phase);
      spec.series.forEach((s, k) => {
        const data = k === 0 ? first : metricSeries(run.records, s.name, spec.phase);
        if (k > 0 && (data[0].length === 0 || (spec.dropRepeats && same(first, data)))) return;
        // Overlaid runs compare the panel's main metric only: one line per run.
        if (overlay && k > 0) return;
        const label = overlay ? run.label : s.label;
        parts.push({
          series: { label, color: overlay ? RUN_COLORS[r % RUN_COLORS.length] : k === 0 ? color : '#555', dash: overlay ? r % 2 === 1 : k > 0 },
          data,
        });
      });
    });
    return parts;
  }, [runs, spec, color, overlay]);
  const main = built[0]?.data ?? [[], []];
  const n = main[0].length;
  const data = useMemo(() => alignSeries(built.map((b) => b.data)), [built]);
  const any = built.some((b) => b.data[0].length > 0);
  const summary = built.map((b) => describeSeries(b.series.label, b.data)).join(' ');
  const repeats =
    !overlay &&
    spec.dropRepeats &&
    built.length === 1 &&
    spec.series.length > 1 &&
    runs[0] &&
    metricSeries(runs[0].records, spec.series[1].name, spec.phase)[0].length > 0;
  const unit = spec.phase === 'sft' ? 'SFT step' : 'iteration';
  return h(
    'figure',
    { class: 'panel', 'data-metric': spec.key, 'data-points': n, 'data-phase': spec.phase },
    h(GlossaryTitle, { name: spec.key, title: spec.title }),
    h(
      'figcaption',
      { class: 'panel-meta' },
      overlay
        ? `last: ${built.map((b) => `${b.series.label} ${b.data[0].length ? fmt(b.data[1][b.data[1].length - 1]) : '—'}`).join(' · ')}`
        : n === 0
          ? spec.phase === 'sft'
            ? 'not logged in this run'
            : 'no point yet'
          : `${n} points · last ${fmt(main[1][n - 1])} at ${unit} ${main[0][n - 1]}`,
      repeats ? ' · success = reward here' : '',
    ),
    any
      ? h(
          'div',
          { role: 'img', 'aria-label': `${spec.title} chart. ${summary}`, class: 'chart-host' },
          h(Chart, {
            data,
            syncKey: spec.phase === 'sft' ? 'sft' : 'rl',
            series: built.map((b) => b.series),
            ...(onPick && spec.phase !== 'sft' ? { onPick: (step: number) => onPick(spec.phase, step) } : {}),
          }),
        )
      : h(
          'div',
          { class: 'chart chart-empty' },
          spec.phase === 'sft' ? 'no SFT rows' : spec.phase === 'eval' ? 'first evaluation after the warm start' : 'first point after the warm start',
        ),
    h('p', { class: 'sr-only' }, summary),
  );
}

export interface DashboardProps {
  records?: readonly MetricsRecord[];
  /** Overlay these runs instead (two or more: compare mode). */
  runs?: readonly DashboardRun[];
  /** Click on an RL or evaluation chart: open that iteration's rollouts. */
  onPick?: (phase: Phase, step: number) => void;
}

export function Dashboard({ records, runs, onPick }: DashboardProps) {
  const shown = useMemo(() => runs ?? [{ label: 'this run', records: records ?? [] }], [runs, records]);
  return h(
    'section',
    { class: 'dashboard', 'aria-label': 'Dashboard' },
    PANELS.map((spec, i) => h(Panel, { key: spec.key, spec, runs: shown, color: COLORS[i], ...(onPick ? { onPick } : {}) })),
  );
}
