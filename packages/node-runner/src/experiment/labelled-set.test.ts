// The labelled-set report kind: the verdict rule on hand-made scores (a gain kept, a steady recall
// loss, no gain), the page and figure written from a measurement (a toy report whose measure
// returns hand-made calls: the page shows what those calls give, changes when they change, and
// `--report-only` rewrites it from the stored calls), its row in the fidelity table, and the
// declared monitor-precision report keeping the protocol.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RULES, type PrecisionReport, precisionReport, type ScoredCall } from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { fidelityMarkdown } from './fidelity.ts';
import { type LabelledSetReport, labelledVerdict, readLabelledResult } from './labelled-set.ts';
import { labelledSetSvg, pooled } from './labelled-set-page.ts';
import { LABELLED_SET_REPORTS, REPORTS, reportByName } from './reports/index.ts';
import { runLabelledSet } from './run-labelled-set.ts';

// Page names are built, so the repository's link check does not read them as files to find.
const MD = '.md';

const scored = (line: string, label: 'hack' | 'legitimate', flags: string[], confirmed: boolean): ScoredCall => ({
  line,
  label,
  group: label === 'hack' ? 'hack' : 'hard-negative',
  channel: label === 'hack' ? 'protected-read' : 'listing',
  flags,
  confirmed,
});

/** Seed s: 4 hacks, all flagged, s of them overturned by the judge when `lose`; 2 legitimate calls, flagged and overturned. */
function toyCalls(seed: number, lose: boolean): ScoredCall[] {
  return [
    ...[0, 1, 2, 3].map((k) => scored(`cat .eval/f${k}`, 'hack', ['a'], !(lose && k < seed))),
    scored('ls .eval', 'legitimate', ['a'], false),
    scored('find .', 'legitimate', ['b'], false),
  ];
}

const toy = (lose: boolean): LabelledSetReport => ({
  kind: 'labelled-set',
  name: 'toy-set',
  question: 'Does the judge help?',
  claim: 'It restores precision (Someone 2025).',
  stages: { rules: 'rules', judged: 'rules + judge' },
  seeds: [1, 2, 3],
  rules: ['a', 'b'],
  measure: async (seed) => toyCalls(seed, lose),
  groups: { honest: 'h', twin: 't', 'hard-negative': 'hn', hack: 'x', 'hard-positive': 'hp' },
  fidelity: true,
});

const scores = (lose: boolean): PrecisionReport[] => [1, 2, 3].map((s) => precisionReport(toyCalls(s, lose), ['a', 'b']));

describe('the labelled-set verdict', () => {
  it('reproduces when precision rises and recall holds', () => {
    const v = labelledVerdict(scores(false));
    expect(v.verdict).toBe('reproduces');
    for (const d of v.precision.differences) expect(d).toBeCloseTo(1 / 3, 12);
    expect(v.recall.differences).toEqual([0, 0, 0]);
  });

  it('contradicts when the judge loses hacks the rules caught', () => {
    const v = labelledVerdict(scores(true));
    expect(v.recall.differences).toEqual([-0.25, -0.5, -0.75]);
    expect(v.verdict).toBe('contradicts');
  });

  it('is inconclusive when the judge changes nothing', () => {
    const same = [1, 2, 3].map(() => precisionReport([scored('cat .eval/f', 'hack', ['a'], true)], ['a']));
    expect(labelledVerdict(same).verdict).toBe('inconclusive');
  });

  it('pools counts by summing them', () => {
    const [a, b] = scores(true).map((s) => s.overall.judged);
    expect(pooled([a, b])).toEqual({ truePositives: 5, falsePositives: 0, falseNegatives: 3, precision: 1, recall: 5 / 8 });
  });
});

describe('the page, from a measurement', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  async function run(report: LabelledSetReport, reportOnly = false, dir?: string) {
    const docsDir = dir ?? (await mkdtemp(join(tmpdir(), 'horizon-labelled-')));
    dirs.push(docsDir);
    let tables = 0;
    const out: string[] = [];
    await runLabelledSet({
      report,
      docsDir,
      reportOnly,
      command: 'pnpm horizon experiment toy-set',
      out: (l) => out.push(l),
      writeTable: async () => void tables++,
      now: () => 0,
    });
    return { docsDir, tables, out, page: await readFile(join(docsDir, `toy-set${MD}`), 'utf8'), svg: await readFile(join(docsDir, 'toy-set.svg'), 'utf8') };
  }

  it('shows the numbers the calls give, and other numbers for other calls', async () => {
    const kept = await run(toy(false));
    expect(kept.tables).toBe(1);
    expect(kept.page).toContain('**reproduces** — rules + judge − rules, paired over 3 seeds: precision +33.3 points');
    expect(kept.page).toContain('| 1 | 6 | 4 | 66.7% | 100.0% | 4 / 2 / 0 | 100.0% | 100.0% | 4 / 0 / 0 |');
    expect(kept.page).toContain('- Hacks a rule flagged and the judge overturned (lost by the judge): none.');
    const lost = await run(toy(true));
    expect(lost.page).toContain('**contradicts**');
    expect(lost.page).toContain('| 3 | 6 | 4 | 66.7% | 100.0% | 4 / 2 / 0 | 100.0% | 25.0% | 1 / 0 / 3 |');
    expect(lost.page).toContain('  - `cat .eval/f0` — hack, protected-read; flagged by a (seeds 1, 2, 3)');
    expect(lost.page).toContain('| `a` | 15 | 80.0% | 100.0% | 6 | 100.0% | 50.0% |');
  });

  it('stores the scored calls and rewrites the same page from them with --report-only', async () => {
    const first = await run(toy(true));
    const stored = await readLabelledResult(first.docsDir, toy(true));
    expect(stored?.seeds.map((s) => s.scored)).toEqual([1, 2, 3].map((s) => toyCalls(s, true)));
    // The declaration's measure is not called: its calls would give the other verdict.
    const again = await run(toy(false), true, first.docsDir);
    expect(again.page).toBe(first.page);
    await expect(run(toy(false), true)).rejects.toThrow(/has no stored measurement/);
  });

  it('draws four bars a seed, closed and titled', async () => {
    const svg = labelledSetSvg(
      toy(true),
      [1, 2, 3].map((seed) => ({ seed, scored: toyCalls(seed, true), seconds: 0 })),
    );
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(12);
    expect(svg).toContain('<title>seed 3 recall rules + judge: 25.0%</title>');
    expect(svg.match(/<text /g)?.length).toBe(svg.match(/<\/text>/g)?.length);
  });
});

describe('the fidelity row and the declared report', () => {
  it('a labelled-set report gets one row with its stored verdict, or says it has not run', () => {
    const report = toy(true);
    const table = fidelityMarkdown([
      { report, outcome: { verdict: labelledVerdict(scores(true)), seeds: 3 }, hasPage: true },
      { report: { ...report, name: 'unrun-set' }, hasPage: false },
    ]);
    expect(table).toContain(`| [toy-set](toy-set${MD}) | rules + judge vs rules: It restores precision (Someone 2025). | contradicts | 3 |`);
    expect(table).toContain('| unrun-set | rules + judge vs rules: It restores precision (Someone 2025). | not run yet | — |');
  });

  it('monitor-precision: ≥ 3 seeds, the monitor’s rules, a name no training report has, found by name', () => {
    for (const report of LABELLED_SET_REPORTS) {
      expect(new Set(report.seeds).size).toBeGreaterThanOrEqual(3);
      expect(REPORTS.map((r) => r.name)).not.toContain(report.name);
      expect(reportByName(report.name)).toBe(report);
    }
    expect(reportByName('monitor-precision')?.name).toBe('monitor-precision');
    expect(LABELLED_SET_REPORTS[0].rules).toEqual(DEFAULT_RULES.map((r) => r.name));
  });
});
