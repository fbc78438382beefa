// Held-out curves of two groups of runs side by side, e.g. the default recipe before and after a
// refactor at 3 seeds each: every evaluation point's mean ± sd per group, the final figures per
// seed, and whether the groups' final means lie within each other's seed spread (mean ± 2 sd).
//
//   node --import tsx tools/experiments/compare-curves.ts \
//     before=docs/data/add-ppo/metrics.jsonl,runs/b2/metrics.jsonl,runs/b3/metrics.jsonl \
//     after=runs/a1/metrics.jsonl,runs/a2/metrics.jsonl,runs/a3/metrics.jsonl
//
// Reads metrics.jsonl as `horizon train` writes it (the `eval` rows' eval/held_out_success).

import { readFileSync } from 'node:fs';
import { parseMetricsLog } from '@horizon/core';

interface Run {
  file: string;
  seed: number;
  /** RL iteration → held-out success. */
  curve: Map<number, number>;
}

function readRun(file: string): Run {
  const log = parseMetricsLog(readFileSync(file, 'utf8'));
  const seed = Number((log.header.recipe as { seed?: number }).seed ?? Number.NaN);
  const curve = new Map<number, number>();
  for (const r of log.records)
    if (r.phase === 'eval' && r.metrics['eval/held_out_success'] !== undefined) curve.set(r.step, r.metrics['eval/held_out_success']);
  return { file, seed, curve };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => (xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1)) : Number.NaN);
const pct = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '—');

const groups = process.argv.slice(2).map((arg) => {
  const at = arg.indexOf('=');
  if (at < 1) throw new Error(`expected NAME=file,file,…, got "${arg}"`);
  return {
    name: arg.slice(0, at),
    runs: arg
      .slice(at + 1)
      .split(',')
      .map(readRun),
  };
});
if (groups.length === 0) throw new Error('give at least one NAME=metrics.jsonl,… group');

const points = [...new Set(groups.flatMap((g) => g.runs.flatMap((r) => [...r.curve.keys()])))].sort((a, b) => a - b);
console.log(`| iteration | ${groups.map((g) => `${g.name} (mean ± sd, ${g.runs.length} seeds)`).join(' | ')} |`);
console.log(`|---|${groups.map(() => '---|').join('')}`);
for (const it of points) {
  const cells = groups.map((g) => {
    const xs = g.runs.flatMap((r) => (r.curve.has(it) ? [r.curve.get(it) as number] : []));
    return xs.length ? `${pct(mean(xs))} ± ${pct(sd(xs))}` : '—';
  });
  console.log(`| ${it} | ${cells.join(' | ')} |`);
}
console.log('');
const finals = groups.map((g) => ({
  name: g.name,
  values: g.runs.map((r) => ({ seed: r.seed, value: r.curve.get(Math.max(...r.curve.keys())) ?? Number.NaN })),
}));
for (const f of finals) console.log(`${f.name} final: ${f.values.map((v) => `seed ${v.seed} ${pct(v.value)}%`).join(', ')}`);
if (finals.length === 2) {
  const [a, b] = finals.map((f) => f.values.map((v) => v.value));
  const within = (x: number[], y: number[]) => Math.abs(mean(x) - mean(y)) <= 2 * sd(y);
  console.log(
    `${finals[0].name} final mean ${pct(mean(a))}% is ${within(a, b) ? 'within' : 'outside'} ${finals[1].name}'s mean ± 2 sd (${pct(mean(b))} ± ${pct(2 * sd(b))}); ` +
      `${finals[1].name}'s ${pct(mean(b))}% is ${within(b, a) ? 'within' : 'outside'} ${finals[0].name}'s (${pct(mean(a))} ± ${pct(2 * sd(a))}).`,
  );
}
