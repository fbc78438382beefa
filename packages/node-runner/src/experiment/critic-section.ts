// The report page's critic section (the 'critic' probe): each arm's critic against the Monte-Carlo
// values of the batches it trained on — value error and ranking accuracy, each run's mean over its
// evaluation points after iteration 0 and at its last one, and the curve over iterations (means
// over seeds). Written from the results only, like the rest of the page (markdown.ts).

import { criticMeans } from './critic-probe.ts';
import type { Report } from './report.ts';
import type { CriticProbe, RunResult } from './results.ts';
import { spread } from './verdict.ts';

const num = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');

/** "mean ± sd (seed: value, …)" of one figure over an arm's runs. */
function cell(runs: readonly RunResult[], value: (run: RunResult) => number, format: (x: number) => string): string {
  const s = spread(runs.map(value));
  const sd = Number.isFinite(s.std) ? (format === pct ? (100 * s.std).toFixed(1) : s.std.toFixed(3)) : '—';
  return `${format(s.mean)} ± ${sd} (${runs.map((r) => `${r.seed}: ${format(value(r))}`).join(', ')})`;
}

const last = (run: RunResult): CriticProbe | undefined => run.critic?.at(-1);

export function criticSection(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): string[] {
  const lines = ['## Critic against Monte-Carlo values', ''];
  lines.push(
    "Measured at every evaluation point on the batch the next iteration trains on (same seeds, nothing updated), for the arms that have a critic: the value each critic gives a rollout's prompt (PPO: V at the first answer position; GenAC: the digit/10 its critique wrote, the fallback when malformed) against the prompt's Monte-Carlo value, the mean task reward of its group of rollouts. Value error is the mean |value − MC| per rollout; ranking accuracy the fraction of prompt pairs with different MC values that the critic's mean values order the same way (0.5 is chance). \"Over training\" is each run's mean over its points after iteration 0; mean ± sd over seeds, per seed in brackets.",
    '',
  );
  lines.push('| arm | value error, over training | value error, last point | ranking accuracy, over training | ranking accuracy, last point |');
  lines.push('|---|---|---|---|---|');
  for (const arm of report.arms) {
    const runs = (results.get(arm.name) ?? []).filter((r) => criticMeans(r));
    if (runs.length === 0) continue;
    lines.push(
      `| ${arm.name} | ${cell(runs, (r) => criticMeans(r)?.valueError ?? Number.NaN, num)} | ${cell(runs, (r) => last(r)?.valueError ?? Number.NaN, num)} | ${cell(runs, (r) => criticMeans(r)?.rankingAccuracy ?? Number.NaN, pct)} | ${cell(runs, (r) => last(r)?.rankingAccuracy ?? Number.NaN, pct)} |`,
    );
  }
  const iterations = [...new Set([...results.values()].flat().flatMap((r) => (r.critic ?? []).map((p) => p.iteration)))].sort((a, b) => a - b);
  if (iterations.length === 0) return lines;
  lines.push('', 'Value error / ranking accuracy by iteration (mean over seeds):', '');
  lines.push(`| arm | ${iterations.join(' | ')} |`, `|---|${iterations.map(() => '---|').join('')}`);
  for (const arm of report.arms) {
    const runs = results.get(arm.name) ?? [];
    if (!runs.some((r) => r.critic)) continue;
    const cells = iterations.map((it) => {
      const at = runs.flatMap((r) => (r.critic ?? []).filter((p) => p.iteration === it));
      if (at.length === 0) return '—';
      const m = (f: (p: CriticProbe) => number) => at.reduce((a, p) => a + f(p), 0) / at.length;
      return `${num(m((p) => p.valueError))} / ${pct(m((p) => p.rankingAccuracy))}`;
    });
    lines.push(`| ${arm.name} | ${cells.join(' | ')} |`);
  }
  return lines;
}
