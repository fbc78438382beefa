// A labelled-set report's page, docs/experiments/<name>.md, and its figure: the verdict, the set's
// composition, precision and recall of each stage per seed, per rule and per hack channel (seeds
// pooled), and every call a stage got wrong, by line. Written from the stored scored calls only
// (labelled-set.ts): every figure is computed here from the decisions, so regenerating the page
// from a clone (`--report-only`) gives the same page, and no number on it is typed in.

import { CALL_GROUPS, type Counts, type PrecisionReport, type ScoredCall } from '@horizon/core';
import { type LabelledSeed, type LabelledSetReport, labelledVerdict, seedScores } from './labelled-set.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');
const points = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}` : '—');
const se = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '—');
/** A line as inline code; one holding backticks is fenced by two, as CommonMark allows. */
const code = (line: string) => (line.includes('`') ? `\`\` ${line} \`\`` : `\`${line}\``);

/** Counts summed over seeds, with precision and recall of the sums. */
export function pooled(all: readonly Counts[]): Counts {
  const sum = (f: (c: Counts) => number) => all.reduce((a, c) => a + f(c), 0);
  const truePositives = sum((c) => c.truePositives);
  const falsePositives = sum((c) => c.falsePositives);
  const falseNegatives = sum((c) => c.falseNegatives);
  return {
    truePositives,
    falsePositives,
    falseNegatives,
    precision: truePositives + falsePositives > 0 ? truePositives / (truePositives + falsePositives) : Number.NaN,
    recall: truePositives + falseNegatives > 0 ? truePositives / (truePositives + falseNegatives) : Number.NaN,
  };
}

const tally = (c: Counts) => `${c.truePositives} / ${c.falsePositives} / ${c.falseNegatives}`;

/** Distinct lines of `calls` with the seeds they came from: `line` (seeds 1, 3). */
function linesWithSeeds(rows: readonly { seed: number; call: ScoredCall }[]): string[] {
  const bySeed = new Map<string, { call: ScoredCall; seeds: number[] }>();
  for (const { seed, call } of rows) {
    const key = `${call.group} ${call.channel} ${call.line}`;
    const entry = bySeed.get(key) ?? { call, seeds: [] };
    if (!entry.seeds.includes(seed)) entry.seeds.push(seed);
    bySeed.set(key, entry);
  }
  return [...bySeed.values()].map(
    ({ call, seeds }) =>
      `  - ${code(call.line)} — ${call.group}, ${call.channel}; flagged by ${call.flags.join(', ') || 'no rule'} (seed${seeds.length > 1 ? 's' : ''} ${seeds.join(', ')})`,
  );
}

export function labelledSetMarkdown(report: LabelledSetReport, seeds: readonly LabelledSeed[], svgFile: string, commands: readonly string[]): string {
  const scores: PrecisionReport[] = seeds.map((s) => seedScores(report, s));
  const v = labelledVerdict(scores);
  const lines: string[] = [];
  lines.push(`# Experiment: ${report.name}`, '');
  lines.push('Written by `horizon experiment` from the stored scored calls; do not edit by hand (the runner rewrites it).', '');
  lines.push(`**Question.** ${report.question}`, '');
  lines.push('## Verdict', '');
  const why =
    v.verdict === 'reproduces'
      ? 'precision rises by more than 2 standard errors and recall does not fall by more than 2'
      : v.verdict === 'contradicts'
        ? v.recall.verdict === 'reproduces'
          ? 'recall falls by more than 2 standard errors: the judge stage overturns hacks the rules caught'
          : 'precision falls by more than 2 standard errors'
        : 'the precision gain is within 2 standard errors of zero';
  lines.push(
    `- *${report.claim}* **${v.verdict}** — ${report.stages.judged} − ${report.stages.rules}, paired over ${seeds.length} seeds: precision ${points(v.precision.mean)} points (standard error ${se(v.precision.standardError)}), recall ${points(v.recall.mean)} points (standard error ${se(v.recall.standardError)}): ${why}.`,
    '',
  );
  lines.push(`![precision and recall of each stage, per seed](${svgFile})`, '');
  lines.push('## The labelled set', '');
  lines.push('Each label is the generator’s (how the call was built), never the monitor’s. The groups:', '');
  for (const group of CALL_GROUPS) lines.push(`- **${group}**: ${report.groups[group]}`);
  lines.push('', `| group | label | calls per seed (${seeds.map((s) => `seed ${s.seed}`).join(', ')}) |`, '|---|---|---|');
  for (const group of CALL_GROUPS) {
    const per = seeds.map((s) => s.scored.filter((c) => c.group === group));
    const label = [...new Set(per.flat().map((c) => c.label))].join(', ');
    lines.push(`| ${group} | ${label} | ${per.map((p) => p.length).join(', ')} |`);
  }
  lines.push('', '## Both stages, per seed', '');
  lines.push(
    `A call is called a hack by the rule stage when any rule flags it; by ${report.stages.judged} when a rule flags it and the judge confirms it. TP / FP / FN: hacks caught, legitimate calls called hacks, hacks let through.`,
    '',
  );
  lines.push(
    `| seed | calls | hacks | ${report.stages.rules}: precision | recall | TP / FP / FN | ${report.stages.judged}: precision | recall | TP / FP / FN |`,
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const [i, s] of scores.entries()) {
    const { rules, judged } = s.overall;
    lines.push(
      `| ${seeds[i].seed} | ${s.calls} | ${s.hacks} | ${pct(rules.precision)} | ${pct(rules.recall)} | ${tally(rules)} | ${pct(judged.precision)} | ${pct(judged.recall)} | ${tally(judged)} |`,
    );
  }
  const all = { rules: pooled(scores.map((s) => s.overall.rules)), judged: pooled(scores.map((s) => s.overall.judged)) };
  lines.push(
    `| all | ${scores.reduce((a, s) => a + s.calls, 0)} | ${scores.reduce((a, s) => a + s.hacks, 0)} | ${pct(all.rules.precision)} | ${pct(all.rules.recall)} | ${tally(all.rules)} | ${pct(all.judged.precision)} | ${pct(all.judged.recall)} | ${tally(all.judged)} |`,
  );
  lines.push('', '## Per rule (seeds pooled)', '');
  lines.push(
    'A rule’s precision is over the calls it flagged; its recall is the share of all hacks it flags (a hack can trip several rules, so they overlap).',
    '',
  );
  lines.push(`| rule | flagged | ${report.stages.rules}: precision | recall | confirmed by the judge | ${report.stages.judged}: precision | recall |`);
  lines.push('|---|---|---|---|---|---|---|');
  for (const rule of report.rules) {
    const of = (stage: 'rules' | 'judged') => pooled(scores.map((s) => s.byRule.find((r) => r.rule === rule)?.counts[stage] as Counts));
    const r = of('rules');
    const j = of('judged');
    lines.push(
      `| \`${rule}\` | ${r.truePositives + r.falsePositives} | ${pct(r.precision)} | ${pct(r.recall)} | ${j.truePositives + j.falsePositives} | ${pct(j.precision)} | ${pct(j.recall)} |`,
    );
  }
  lines.push('', '## Per hack channel (seeds pooled)', '');
  lines.push(`| channel | hacks | ${report.stages.rules}: recall | ${report.stages.judged}: recall |`, '|---|---|---|---|');
  const channels = [...new Set(scores.flatMap((s) => s.byChannel.map((c) => c.channel)))];
  for (const channel of channels) {
    const of = (stage: 'rules' | 'judged') => pooled(scores.flatMap((s) => s.byChannel.filter((c) => c.channel === channel).map((c) => c.counts[stage])));
    const r = of('rules');
    lines.push(`| ${channel} | ${r.truePositives + r.falseNegatives} | ${pct(r.recall)} | ${pct(of('judged').recall)} |`);
  }
  lines.push('', '## Where a stage is wrong, by call', '');
  const rows = (pick: (s: PrecisionReport) => readonly ScoredCall[]) => scores.flatMap((s, i) => pick(s).map((call) => ({ seed: seeds[i].seed, call })));
  const section = (title: string, list: { seed: number; call: ScoredCall }[]) => {
    lines.push(`- ${title}: ${list.length === 0 ? 'none.' : `${list.length}, these lines:`}`);
    lines.push(...linesWithSeeds(list));
  };
  section(
    'Hacks no rule flagged (missed by both stages)',
    rows((s) => s.missedByRules),
  );
  section(
    'Hacks a rule flagged and the judge overturned (lost by the judge)',
    rows((s) => s.overturnedHacks),
  );
  section(
    'Legitimate calls the judge confirmed (false positives of both stages)',
    rows((s) => s.confirmedLegitimate),
  );
  const overturned = seeds.flatMap((s) =>
    s.scored.filter((c) => c.label === 'legitimate' && c.flags.length > 0 && !c.confirmed).map((call) => ({ seed: s.seed, call })),
  );
  section('Legitimate calls a rule flagged and the judge overturned (the precision it restores)', overturned);
  lines.push('', '## Protocol', '');
  lines.push(`- Seeds ${report.seeds.join(', ')}; each draws its own labelled set. Both stages score the same calls, so the comparison is paired by seed.`);
  lines.push(
    '- Verdict rule: the paired mean difference of precision and of recall (rules + judge − rules, per seed) against 2 standard errors of that mean; reproduces when precision rises beyond it and recall does not fall beyond it, contradicts when recall falls (or precision falls) beyond it. A loss on the same calls at every seed has standard error 0 and counts as a loss.',
  );
  lines.push(
    `- Nothing is trained; a seed took ${seeds.map((s) => `${s.seconds.toFixed(1)} s`).join(', ')} (wall time on the machine as it was, possibly shared).`,
  );
  lines.push('', '## Commands', '', '```', ...commands, '```', '');
  return lines.join('\n');
}

const PALETTE = { rules: '#ff7f0e', judged: '#1f77b4' };

/** Grouped bars: for each seed, precision then recall, each for the rule stage and for rules + judge. */
export function labelledSetSvg(report: LabelledSetReport, seeds: readonly LabelledSeed[]): string {
  const scores = seeds.map((s) => seedScores(report, s));
  const bar = 16;
  const groupWidth = 4 * bar + 36;
  const left = 56;
  const top = 36;
  const plotH = 220;
  const width = left + seeds.length * groupWidth + 20;
  const height = top + plotH + 76;
  const sy = (v: number) => top + (1 - (Number.isFinite(v) ? v : 0)) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<title>${report.name}: precision and recall per seed</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">precision (P) and recall (R) per seed</text>`,
  ];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${sy(t)}" y2="${sy(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${sy(t) + 4}" text-anchor="end" font-size="11">${t * 100}%</text>`);
  }
  for (const [i, s] of scores.entries()) {
    const x0 = left + 18 + i * groupWidth;
    const bars: [string, keyof typeof PALETTE, number][] = [
      ['P', 'rules', s.overall.rules.precision],
      ['P', 'judged', s.overall.judged.precision],
      ['R', 'rules', s.overall.rules.recall],
      ['R', 'judged', s.overall.judged.recall],
    ];
    for (const [k, [metric, stage, value]] of bars.entries()) {
      const x = x0 + k * bar + (k >= 2 ? 6 : 0);
      parts.push(
        `<rect x="${x}" y="${sy(value).toFixed(1)}" width="${bar - 2}" height="${(top + plotH - sy(value)).toFixed(1)}" fill="${PALETTE[stage]}"><title>seed ${seeds[i].seed} ${metric === 'P' ? 'precision' : 'recall'} ${stage === 'rules' ? report.stages.rules : report.stages.judged}: ${pct(value)}</title></rect>`,
      );
      if (k % 2 === 0) parts.push(`<text x="${x + bar}" y="${top + plotH + 14}" text-anchor="middle" font-size="11">${metric}</text>`);
    }
    parts.push(`<text x="${x0 + 2 * bar + 3}" y="${top + plotH + 30}" text-anchor="middle" font-size="12">seed ${seeds[i].seed}</text>`);
  }
  parts.push(`<line x1="${left}" x2="${width - 20}" y1="${sy(0)}" y2="${sy(0)}" stroke="#333"/>`);
  const legendY = top + plotH + 56;
  parts.push(
    `<rect x="${left}" y="${legendY - 10}" width="12" height="12" fill="${PALETTE.rules}"/><text x="${left + 18}" y="${legendY}" font-size="12">${report.stages.rules}</text>`,
  );
  parts.push(
    `<rect x="${left + 140}" y="${legendY - 10}" width="12" height="12" fill="${PALETTE.judged}"/><text x="${left + 158}" y="${legendY}" font-size="12">${report.stages.judged}</text>`,
  );
  parts.push('</svg>', '');
  return parts.join('\n');
}
