// The report page, docs/experiments/<name>.md: question, claims and their verdicts, the plot, each
// arm's mean and spread, the paired differences, the training metrics it names, what all-equal
// groups did (if probed), the exact commands, and the protocol. Written from the declared report
// and the runs' results only, so it can be regenerated from the committed result files without a GPU.

import { criticMeans } from './critic-probe.ts';
import { criticSection } from './critic-section.ts';
import type { Comparison, Report } from './report.ts';
import type { HackFigures, RunResult } from './results.ts';
import { type PairedDifference, pairedDifference, spread, type Verdict } from './verdict.ts';

export interface ComparisonOutcome {
  comparison: Comparison;
  /** Seeds where both arms finished. */
  seeds: number[];
  paired: PairedDifference;
}

/** The paired outcome of each comparison over the seeds both of its arms have finished. */
export function compare(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): ComparisonOutcome[] {
  return report.comparisons.map((comparison) => {
    const finals = (arm: string) => {
      const bySeed = new Map<number, number>();
      for (const run of results.get(arm) ?? []) {
        const value = comparedValue(run, comparison);
        if (value !== undefined) bySeed.set(run.seed, value);
      }
      return bySeed;
    };
    const a = finals(comparison.arm);
    const b = finals(comparison.against);
    const seeds = report.seeds.filter((s) => a.has(s) && b.has(s));
    const paired = pairedDifference(
      seeds.map((s) => a.get(s) as number),
      seeds.map((s) => b.get(s) as number),
      comparison.direction,
    );
    return { comparison, seeds, paired };
  });
}

/**
 * What a comparison reads from a run (undefined if the run has no such figure): its final held-out
 * success, on one skill's problems if `skill` is given, or its critic's mean probe figure.
 */
function comparedValue(run: RunResult, c: Comparison): number | undefined {
  if (c.metric === 'critic-value-error') return criticMeans(run)?.valueError;
  if (c.metric === 'critic-ranking') return criticMeans(run)?.rankingAccuracy;
  if (c.metric === 'held-out-hacked') return run.final.hack?.hacked;
  if (c.metric === 'held-out-clean') return run.final.hack?.clean;
  if (c.metric === 'response-length') return run.final.responseLength;
  // Per 100 tokens, so the page's points (×100) read as reward per 10⁴ tokens: per token, a
  // HiddenTestFS run's figure is a few thousandths, below the tables' one decimal.
  if (c.metric === 'reward-per-token')
    return run.sampledReward === undefined || !(run.sampledTokens > 0) ? undefined : (100 * run.sampledReward) / run.sampledTokens;
  return c.skill === undefined ? run.final.heldOut : run.final.bySkill?.[c.skill];
}

/** What a comparison compares, in words. */
export function comparedWhat(c: Comparison): string {
  if (c.metric === 'critic-value-error') return "the critic's value error (×100)";
  if (c.metric === 'critic-ranking') return "the critic's ranking accuracy (%)";
  if (c.metric === 'held-out-hacked') return 'final held-out hacked-resolved (solved after a protected read, monitor only logging)';
  if (c.metric === 'held-out-clean') return 'final held-out clean-resolved (solved with no protected read)';
  if (c.metric === 'response-length') return 'final held-out response length (tokens)';
  if (c.metric === 'reward-per-token') return 'training reward per 10⁴ sampled action tokens';
  return `final held-out ${c.skill ? `${c.skill} ` : ''}success`;
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : '—');
const points = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}` : '—');
/** A comparison's figures are shares shown as points (×100), except a length, shown in tokens as it is. */
const inTokens = (c: Comparison) => c.metric === 'response-length';
const signedAs = (c: Comparison, x: number) => (inTokens(c) ? (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}` : '—') : points(x));
const errorAs = (c: Comparison, se: number) => (Number.isFinite(se) ? (inTokens(c) ? se : 100 * se).toFixed(1) : '—');

/** The one-sentence verdict of a comparison. */
export function verdictSentence(outcome: ComparisonOutcome): string {
  const { comparison: c, seeds, paired } = outcome;
  const what = `${c.arm} − ${c.against} on ${comparedWhat(c)} is ${signedAs(c, paired.mean)} ${inTokens(c) ? 'tokens' : 'points'} (standard error ${errorAs(c, paired.standardError)}, ${seeds.length} paired seeds)`;
  const why: Record<Verdict, string> = {
    reproduces: `more than 2 standard errors ${c.direction === 'higher' ? 'above' : 'below'} zero, as the claim predicts`,
    contradicts: `more than 2 standard errors ${c.direction === 'higher' ? 'below' : 'above'} zero, against the claim`,
    inconclusive: seeds.length < 2 ? 'too few paired seeds to judge' : 'within 2 standard errors of zero',
  };
  return `**${paired.verdict}** — ${what}: ${why[paired.verdict]}.`;
}

export interface ReportPage {
  report: Report;
  results: ReadonlyMap<string, readonly RunResult[]>;
  /** Runs planned and finished. */
  planned: number;
  finished: number;
  svgFile: string;
  /** The commands that produced and regenerate it. */
  commands: readonly string[];
  /** Arm name → its resolved overrides, for the protocol section. */
  armSets: ReadonlyMap<string, readonly string[]>;
  /** RL iterations of most arms; `armIterations` names the arms that train longer or shorter. */
  iterations: number;
  armIterations?: ReadonlyMap<string, number>;
  warmStartSteps: number;
}

/** " (add-expert and sub-expert: 50)" for the arms whose iterations differ from the page's; "" when none do. */
function iterationExceptions(page: ReportPage): string {
  const byCount = new Map<number, string[]>();
  for (const [arm, n] of page.armIterations ?? []) if (n !== page.iterations) byCount.set(n, [...(byCount.get(n) ?? []), arm]);
  if (byCount.size === 0) return '';
  return ` (${[...byCount].map(([n, arms]) => `${arms.join(' and ')}: ${n}`).join('; ')})`;
}

export function reportMarkdown(page: ReportPage): string {
  const { report, results } = page;
  const outcomes = compare(report, results);
  const lines: string[] = [];
  lines.push(`# Experiment: ${report.name}`, '');
  lines.push("Written by `horizon experiment` from the runs' results; do not edit by hand (the runner rewrites it).", '');
  if (page.finished < page.planned) lines.push(`> **Incomplete:** ${page.finished} of ${page.planned} runs have finished; the figures below cover those.`, '');
  lines.push(`**Question.** ${report.question}`, '');
  if (report.design?.length) lines.push('## Design', '', ...report.design.flatMap((paragraph) => [paragraph, '']));
  lines.push('## Verdict', '');
  for (const o of outcomes) lines.push(`- *${o.comparison.claim}* ${verdictSentence(o)}`);
  lines.push('');
  lines.push(`![held-out success of every seed against RL iteration and against sampled tokens](${page.svgFile})`, '');
  lines.push('## Arms', '');
  lines.push('| arm | what it is | final held-out (mean ± sd over seeds) | per seed | sampled tokens (mean) | minutes per run (mean) |');
  lines.push('|---|---|---|---|---|---|');
  for (const arm of report.arms) {
    const runs = results.get(arm.name) ?? [];
    const finals = runs.map((r) => r.final.heldOut);
    const s = spread(finals);
    const perSeed = runs.map((r) => `${r.seed}: ${pct(r.final.heldOut)}`).join(', ') || 'not run';
    const tokens = runs.length ? runs.reduce((a, r) => a + r.sampledTokens, 0) / runs.length : Number.NaN;
    const minutes = runs.length ? runs.reduce((a, r) => a + r.seconds, 0) / runs.length / 60 : Number.NaN;
    lines.push(
      `| ${arm.name} | ${arm.label} | ${pct(s.mean)} ± ${Number.isFinite(s.std) ? (100 * s.std).toFixed(1) : '—'} | ${perSeed} | ${Number.isFinite(tokens) ? Math.round(tokens).toLocaleString('en-US') : '—'} | ${Number.isFinite(minutes) ? minutes.toFixed(1) : '—'} |`,
    );
  }
  const first = [...results.values()].flat()[0];
  if (first)
    lines.push(
      '',
      `Held-out success right after the shared warm start (iteration 0): ${report.seeds.map((seed) => `seed ${seed}: ${pct([...results.values()].flat().find((r) => r.seed === seed)?.curve[0]?.heldOut ?? Number.NaN)}`).join(', ')}.`,
    );
  lines.push(...skillSection(report, results));
  lines.push(...hackSection(report, results));
  lines.push('', '## Paired differences', '');
  lines.push('| comparison | per seed (points; tokens for a length) | mean | standard error | verdict |');
  lines.push('|---|---|---|---|---|');
  for (const o of outcomes) {
    const per = o.seeds.map((s, i) => `${s}: ${signedAs(o.comparison, o.paired.differences[i])}`).join(', ') || '—';
    lines.push(
      `| ${o.comparison.arm} − ${o.comparison.against}${o.comparison.skill ? ` (${o.comparison.skill})` : ''}${o.comparison.metric ? ` (${comparedWhat(o.comparison)})` : ''} | ${per} | ${signedAs(o.comparison, o.paired.mean)} | ${errorAs(o.comparison, o.paired.standardError)} | ${o.paired.verdict} |`,
    );
  }
  lines.push(...trainingSection(report, results));
  if (report.probes?.includes('groups')) lines.push('', ...groupSection(report, results));
  if (report.probes?.includes('critic')) lines.push('', ...criticSection(report, results));
  lines.push('', '## Protocol', '');
  lines.push(
    `- Seeds ${report.seeds.join(', ')}; every arm of a seed starts from that seed's one SFT warm start (${page.warmStartSteps} steps, cached) and uses that seed's rollout and shuffle streams.`,
  );
  lines.push(
    `- ${page.iterations} RL iterations per RL arm${iterationExceptions(page)}; every evaluation, the final one included, is greedy on the same ${report.heldOutSize} held-out problems.`,
  );
  lines.push(`- Declared budget: ${report.budget.runs} runs, ${report.budget.minutes} minutes on a quiet 2-core machine (SwiftShader).`);
  lines.push('- Verdict rule: the paired mean difference (arm − comparison arm, per seed) against 2 standard errors of that mean.');
  lines.push(
    '- Minutes per run are wall time on the machine as it was when the run ran, possibly shared with other work; compare arms by iteration and by sampled tokens, not by minutes.',
  );
  lines.push('- Recipes (preset, then overrides; every arm also gets `seed=S` and the evaluation size):', '');
  for (const arm of report.arms) {
    const sets = page.armSets.get(arm.name) ?? [];
    const extra = [
      arm.kind === 'sft-only' ? ` — then ${arm.sftOnlySteps} more SFT steps instead of RL` : '',
      arm.rlSets?.length ? ` — after the warm start: ${arm.rlSets.map((s) => `\`${s}\``).join(' ')}` : '',
      arm.teachers?.length ? ` — teachers: the final policies of ${arm.teachers.map((t) => `\`${t}\``).join(' and ')} at the same seed` : '',
      arm.kind === 'expert-sft' ? ' — supervised steps on the teachers’ completions instead of RL (expert-sft.ts)' : '',
    ].join('');
    lines.push(`  - \`${arm.name}\`: \`${arm.preset}\` ${sets.map((s) => `\`${s}\``).join(' ')}${extra}`);
  }
  lines.push('', '## Commands', '', '```', ...page.commands, '```', '');
  return lines.join('\n');
}

/**
 * Hacked- and clean-resolved and the attempt rate at every evaluation point, mean over seeds, for a
 * task that records hacks (nothing otherwise): the held-out curve split by how it was reached.
 */
function hackSection(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): string[] {
  const runs = [...results.values()].flat();
  if (!runs.some((r) => r.final.hack)) return [];
  const iterations = [...new Set(runs.flatMap((r) => r.curve.filter((p) => p.hack).map((p) => p.iteration)))].sort((a, b) => a - b);
  const lines = [
    '',
    '## Hacked and clean over training',
    '',
    'At each evaluation point, greedy on the held-out problems with the monitor only logging (whatever the arm trains with): the share solved after a protected read reached the agent (hacked-resolved), solved otherwise (clean-resolved), and the share that touched a protected path at all (attempts). Mean over seeds; the last column per seed at the end.',
    '',
  ];
  lines.push(`| arm | ${iterations.map((i) => `iteration ${i}: hacked / clean / attempts`).join(' | ')} | per seed at the end (hacked / clean) |`);
  lines.push(`|---|${iterations.map(() => '---|').join('')}---|`);
  for (const arm of report.arms) {
    const armRuns = results.get(arm.name) ?? [];
    if (armRuns.length === 0) continue;
    const cells = iterations.map((iteration) => {
      const at = armRuns.flatMap((r) => r.curve.filter((p) => p.iteration === iteration && p.hack).map((p) => p.hack as HackFigures));
      if (at.length === 0) return '—';
      const m = (f: (h: HackFigures) => number) => pct(at.reduce((a, h) => a + f(h), 0) / at.length);
      return `${m((h) => h.hacked)} / ${m((h) => h.clean)} / ${m((h) => h.attempts)}`;
    });
    const perSeed = armRuns.map((r) => `${r.seed}: ${r.final.hack ? `${pct(r.final.hack.hacked)} / ${pct(r.final.hack.clean)}` : '—'}`).join(', ');
    lines.push(`| ${arm.name} | ${cells.join(' | ')} | ${perSeed} |`);
  }
  return lines;
}

/** Final held-out success on each skill's problems, for reports on a mixed task (nothing otherwise). */
function skillSection(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): string[] {
  const skills = [...new Set([...results.values()].flat().flatMap((r) => Object.keys(r.final.bySkill ?? {})))];
  if (skills.length === 0) return [];
  const lines = ['', '## By skill', '', 'Final held-out success on each skill’s problems (mean ± sd over seeds; per seed in brackets).', ''];
  lines.push(`| arm | ${skills.join(' | ')} |`, `|---|${skills.map(() => '---|').join('')}`);
  for (const arm of report.arms) {
    const runs = results.get(arm.name) ?? [];
    if (runs.length === 0) continue;
    const cells = skills.map((skill) => {
      const values = runs.flatMap((r) => (r.final.bySkill?.[skill] === undefined ? [] : [r.final.bySkill[skill]]));
      const s = spread(values);
      return `${pct(s.mean)} ± ${Number.isFinite(s.std) ? (100 * s.std).toFixed(1) : '—'} (${values.map(pct).join(', ')})`;
    });
    lines.push(`| ${arm.name} | ${cells.join(' | ')} |`);
  }
  const sft = [...results.values()].flat().filter((r) => r.teacherSamples);
  if (sft.length > 0) {
    const kept = sft.reduce((a, r) => a + (r.teacherSamples?.kept ?? 0), 0);
    const dropped = sft.reduce((a, r) => a + (r.teacherSamples?.dropped ?? 0), 0);
    lines.push(
      '',
      `Teacher completions behind the expert-sft runs: ${kept.toLocaleString('en-US')} trained on, ${dropped.toLocaleString('en-US')} dropped for not ending with <eos>.`,
    );
  }
  return lines;
}

/** Each arm's mean of the report's training metrics, and each comparison's paired differences in them. */
function trainingSection(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): string[] {
  const metrics = report.trainingMetrics ?? [];
  if (metrics.length === 0 || ![...results.values()].flat().some((r) => r.training)) return [];
  const value = (run: RunResult, name: string) => run.training?.[name] ?? Number.NaN;
  const num = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '—');
  const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : '—');
  const lines = ['', '## Training metrics', '', 'Each run’s mean over its RL iterations (mean ± sd over seeds; per seed in brackets).', ''];
  lines.push(`| arm | ${metrics.map((m) => `${m.label} (\`${m.name}\`)`).join(' | ')} |`, `|---|${metrics.map(() => '---|').join('')}`);
  for (const arm of report.arms) {
    const runs = (results.get(arm.name) ?? []).filter((r) => r.training);
    if (runs.length === 0) continue;
    const cells = metrics.map((m) => {
      const s = spread(runs.map((r) => value(r, m.name)));
      return `${num(s.mean)} ± ${num(s.std)} (${runs.map((r) => `${r.seed}: ${num(value(r, m.name))}`).join(', ')})`;
    });
    lines.push(`| ${arm.name} | ${cells.join(' | ')} |`);
  }
  lines.push('', '| comparison | metric | per seed | mean |', '|---|---|---|---|');
  // One block per pair of arms: two claims on the same pair (say, success and length) share it.
  const armPairs = [...new Map(report.comparisons.map((c) => [`${c.arm}\u0000${c.against}`, c])).values()];
  for (const c of armPairs) {
    const against = new Map((results.get(c.against) ?? []).map((r) => [r.seed, r]));
    for (const m of metrics) {
      const pairs = (results.get(c.arm) ?? []).flatMap((r) => {
        const other = against.get(r.seed);
        const d = other ? value(r, m.name) - value(other, m.name) : Number.NaN;
        return Number.isFinite(d) ? [{ seed: r.seed, d }] : [];
      });
      if (pairs.length === 0) continue;
      const mean = pairs.reduce((a, p) => a + p.d, 0) / pairs.length;
      lines.push(`| ${c.arm} − ${c.against} | ${m.label} | ${pairs.map((p) => `${p.seed}: ${signed(p.d)}`).join(', ')} | ${signed(mean)} |`);
    }
  }
  return lines;
}

function groupSection(report: Report, results: ReadonlyMap<string, readonly RunResult[]>): string[] {
  const lines = ['## All-equal reward groups', ''];
  lines.push(
    "Measured on the batch each evaluation point's next iteration trains on (same seeds, nothing updated): the fraction of prompt groups whose task rewards are all equal, the share of the batch's Σ|advantage| (after KL shaping and whitening, what the policy update multiplies ∇log π by) that falls on their tokens, and the mean |advantage| per token inside and outside them. Means over seeds and evaluation points.",
    '',
  );
  lines.push('| arm | all-equal groups | their share of Σ\\|A\\| | mean \\|A\\| in them | mean \\|A\\| elsewhere |');
  lines.push('|---|---|---|---|---|');
  for (const arm of report.arms) {
    const probes = (results.get(arm.name) ?? []).flatMap((r) => r.groups ?? []);
    if (probes.length === 0) continue;
    const m = (f: (p: (typeof probes)[number]) => number) => probes.reduce((a, p) => a + f(p), 0) / probes.length;
    lines.push(
      `| ${arm.name} | ${pct(m((p) => p.flatFraction))} | ${pct(m((p) => p.flatAdvantageShare))} | ${m((p) => p.flatMeanAbsAdvantage).toFixed(3)} | ${m((p) => p.otherMeanAbsAdvantage).toFixed(3)} |`,
    );
  }
  return lines;
}
