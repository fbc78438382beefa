// Dashboard of small multiples (docs/ui.md §8): one chart per headline metric of the RL phase, all on
// the same x (iteration) with a shared cursor; each title carries the glossary's definition, the
// same text `docs/` and the CLI use (core/metrics/glossary.ts).

import { METRICS, type MetricName, type MetricsRecord } from '@horizon/core';
import { h } from 'preact';
import { useMemo } from 'preact/hooks';
import { Chart } from './chart.ts';
import { fmt } from './format.ts';

export const DASHBOARD_METRICS: readonly { name: MetricName; title: string }[] = [
  { name: 'rollout/reward', title: 'Reward' },
  { name: 'rollout/success', title: 'Success' },
  { name: 'policy/kl', title: 'KL to reference' },
  { name: 'policy/entropy', title: 'Entropy' },
  { name: 'policy/clip_frac', title: 'Clip fraction' },
  { name: 'critic/value_loss', title: 'Value loss' },
  { name: 'critic/explained_var', title: 'Explained variance' },
  { name: 'perf/tokens_per_s', title: 'Tokens / s' },
];

// Tableau-10 hues, one per chart, so a chart is recognisable at a glance in a screenshot.
const COLORS = ['#4e79a7', '#59a14f', '#e15759', '#b07aa1', '#f28e2b', '#76b7b2', '#edc948', '#9c755f'];

/** [steps, values] of one metric over the RL records, in log order. */
export function metricSeries(records: readonly MetricsRecord[], name: MetricName): [number[], number[]] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const r of records) {
    if (r.phase !== 'rl') continue;
    const v = r.metrics[name];
    if (v === undefined) continue;
    xs.push(r.step);
    ys.push(v);
  }
  return [xs, ys];
}

function GlossaryTitle({ name, title }: { name: MetricName; title: string }) {
  const def = METRICS[name];
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
      'better' in def ? ` ${def.better === 'higher' ? 'Higher' : 'Lower'} is better.` : '',
    ),
  );
}

function Panel({ records, name, title, color }: { records: readonly MetricsRecord[]; name: MetricName; title: string; color: string }) {
  const data = useMemo(() => metricSeries(records, name), [records, name]);
  const n = data[0].length;
  return h(
    'figure',
    { class: 'panel', 'data-metric': name, 'data-points': n },
    h(GlossaryTitle, { name, title }),
    h('figcaption', { class: 'panel-meta' }, n === 0 ? 'not logged in this run' : `${n} points · last ${fmt(data[1][n - 1])} at step ${data[0][n - 1]}`),
    n === 0 ? h('div', { class: 'chart chart-empty' }, 'no data') : h(Chart, { data, syncKey: 'dashboard', label: title, color }),
  );
}

export function Dashboard({ records }: { records: readonly MetricsRecord[] }) {
  return h(
    'section',
    { class: 'dashboard', 'aria-label': 'Dashboard' },
    DASHBOARD_METRICS.map((m, i) => h(Panel, { key: m.name, records, name: m.name, title: m.title, color: COLORS[i] })),
  );
}
