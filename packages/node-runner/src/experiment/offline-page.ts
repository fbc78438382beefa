// An offline report's page, docs/experiments/<name>.md, and its figure: the verdict of each claim,
// every arm's metrics (mean ± sd over seeds, and per seed), the paired differences, each seed's
// details (the log it trained on), the protocol and the commands. Written from the stored
// measurement only (offline-report.ts), so `--report-only` on a clone gives the same page and no
// number on it is typed in.

import { metricOf, type OfflineReport, type OfflineSeed, offlineOutcomes } from './offline-report.ts';
import { spread } from './verdict.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');
const points = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}` : '—');
const se = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '—');
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function offlineMarkdown(report: OfflineReport, stored: readonly OfflineSeed[], svgFile: string, commands: readonly string[]): string {
  const seeds = stored.filter((s) => report.seeds.includes(s.seed));
  const label = (metric: string) => report.metrics.find((m) => m.name === metric)?.label ?? metric;
  const lines: string[] = [];
  lines.push(`# Experiment: ${report.name}`, '');
  lines.push('Written by `horizon experiment` from the stored measurement; do not edit by hand (the runner rewrites it).', '');
  lines.push(`**Question.** ${report.question}`, '');
  lines.push('## Design', '', ...report.design.flatMap((p) => [p, '']));
  lines.push('## Verdict', '');
  if (seeds.length < report.seeds.length)
    lines.push(`Incomplete: ${seeds.length} of ${report.seeds.length} seeds measured; rerun the command below to measure the rest.`, '');
  for (const { comparison: c, paired } of offlineOutcomes(report, seeds)) {
    const why =
      paired.verdict === 'inconclusive'
        ? 'within 2 standard errors of zero'
        : paired.verdict === 'reproduces'
          ? `more than 2 standard errors ${c.direction === 'higher' ? 'above' : 'below'} zero, as claimed`
          : `more than 2 standard errors ${c.direction === 'higher' ? 'below' : 'above'} zero, against the claim`;
    lines.push(
      `- *${c.claim}* **${paired.verdict}** — ${c.arm} − ${c.against} on ${label(c.metric)} is ${points(paired.mean)} points (standard error ${se(paired.standardError)}, ${seeds.length} paired seeds): ${why}.`,
    );
  }
  lines.push('', `![each arm's metrics per seed](${svgFile})`, '');
  lines.push('## Arms', '');
  lines.push(`| arm | what it is | ${report.metrics.map((m) => `${m.label} (mean ± sd; per seed)`).join(' | ')} |`);
  lines.push(`|---|---|${report.metrics.map(() => '---').join('|')}|`);
  for (const arm of report.arms) {
    const cells = report.metrics.map((m) => {
      const values = seeds.map((s) => metricOf(s, arm.name, m.name));
      const { mean, std } = spread(values);
      return `${pct(mean)} ± ${se(std)} (${seeds.map((s, i) => `${s.seed}: ${pct(values[i])}`).join(', ')})`;
    });
    lines.push(`| ${arm.name} | ${arm.what} | ${cells.join(' | ')} |`);
  }
  lines.push('', '## Paired differences', '');
  lines.push('| comparison | metric | per seed (points) | mean | standard error | verdict |', '|---|---|---|---|---|---|');
  for (const { comparison: c, paired } of offlineOutcomes(report, seeds))
    lines.push(
      `| ${c.arm} − ${c.against} | ${label(c.metric)} | ${paired.differences.map((d, i) => `${seeds[i].seed}: ${points(d)}`).join(', ')} | ${points(paired.mean)} | ${se(paired.standardError)} | ${paired.verdict} |`,
    );
  lines.push('', '## Per seed', '');
  for (const s of seeds) lines.push(`- **Seed ${s.seed}** (${s.seconds.toFixed(0)} s):`, ...report.describeSeed(s).map((l) => `  - ${l}`));
  lines.push('', '## Protocol', '');
  lines.push(
    `- Seeds ${report.seeds.join(', ')}; the arms of a seed share its SFT policy, its log, its minibatch order and the held-out set, so each comparison is paired by seed.`,
  );
  lines.push(
    '- Verdict rule: the paired mean difference (arm − comparison arm, per seed) against 2 standard errors of that mean, in the direction the claim says.',
  );
  lines.push(
    `- Declared budget: ${report.minutes} minutes for all seeds on a quiet 2-core machine (SwiftShader); seconds per seed are wall time on the machine as it was, possibly shared.`,
  );
  lines.push('', '## Commands', '', '```', ...commands, '```', '');
  return lines.join('\n');
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/** One panel per metric: each arm's per-seed values as dots and its mean as a bar. */
export function offlineSvg(report: OfflineReport, stored: readonly OfflineSeed[]): string {
  const seeds = stored.filter((s) => report.seeds.includes(s.seed));
  const panelW = 60 + report.arms.length * 36;
  const left = 48;
  const top = 40;
  const plotH = 200;
  const width = left + report.metrics.length * (panelW + 24);
  const height = top + plotH + 40 + 22 * Math.ceil(report.arms.length / 3);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<title>${xmlText(report.name)}: each arm's metrics per seed</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  for (const [p, metric] of report.metrics.entries()) {
    const x0 = left + p * (panelW + 24);
    const values = report.arms.map((arm) => seeds.map((s) => metricOf(s, arm.name, metric.name)));
    const max = Math.max(0.05, ...values.flat().filter(Number.isFinite));
    const top10 = Math.ceil(max * 10) / 10;
    const sy = (v: number) => top + (1 - v / top10) * plotH;
    parts.push(`<text x="${x0 + panelW / 2}" y="24" text-anchor="middle" font-size="13" font-weight="bold">${xmlText(metric.label)}</text>`);
    for (let t = 0; t <= 4; t++) {
      const v = (top10 * t) / 4;
      parts.push(`<line x1="${x0}" x2="${x0 + panelW}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}" stroke="#ddd"/>`);
      parts.push(`<text x="${x0 - 4}" y="${(sy(v) + 4).toFixed(1)}" text-anchor="end" font-size="10">${(100 * v).toFixed(0)}%</text>`);
    }
    for (const [a, arm] of report.arms.entries()) {
      const x = x0 + 24 + a * 36;
      const { mean } = spread(values[a]);
      const color = PALETTE[a % PALETTE.length];
      if (Number.isFinite(mean))
        parts.push(
          `<rect x="${x - 10}" y="${sy(mean).toFixed(1)}" width="20" height="${(top + plotH - sy(mean)).toFixed(1)}" fill="${color}" fill-opacity="0.35"><title>${xmlText(arm.name)} ${xmlText(metric.label)}: mean ${pct(mean)}</title></rect>`,
        );
      for (const [i, v] of values[a].entries())
        parts.push(
          `<circle cx="${x}" cy="${sy(v).toFixed(1)}" r="3" fill="${color}"><title>${xmlText(arm.name)} seed ${seeds[i].seed}: ${pct(v)}</title></circle>`,
        );
    }
    parts.push(`<line x1="${x0}" x2="${x0 + panelW}" y1="${top + plotH}" y2="${top + plotH}" stroke="#333"/>`);
  }
  for (const [a, arm] of report.arms.entries()) {
    const x = left + (a % 3) * 200;
    const y = top + plotH + 30 + 22 * Math.floor(a / 3);
    parts.push(
      `<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${PALETTE[a % PALETTE.length]}"/><text x="${x + 18}" y="${y}" font-size="12">${xmlText(arm.name)}</text>`,
    );
  }
  parts.push('</svg>', '');
  return parts.join('\n');
}
