// The offline report kind: verdicts from hand-made per-seed metrics (a steady gain, a steady loss,
// noise), the runner (each seed stored as it is measured and never measured again, a stop at the
// pilot seed when the rest would go over budget, `--report-only` rewriting the same page from the
// stored seeds), the page and figure showing the numbers the measurement gives, its fidelity rows,
// the declared span-kto report keeping the protocol, and the solve rate the report measures.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogTurnRecord } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { afterAll, describe, expect, it } from 'vitest';
import { fidelityMarkdown } from './fidelity.ts';
import { offlineSvg } from './offline-page.ts';
import { type OfflineReport, type OfflineSeed, offlineOutcomes, readOfflineResult } from './offline-report.ts';
import { OFFLINE_REPORTS, REPORT_NAMES, reportByName } from './reports/index.ts';
import { runOfflineReport } from './run-offline-report.ts';
import { solveRate } from './span-kto-measure.ts';

// Page names are built, so the repository's link check does not read them as files to find.
const MD = '.md';

/** Seed s: arm "new" solves 0.5 + gain·s/100 + s/1000, "old" 0.5 + s/1000 (so the gain is steady when gain is). */
function toyMetrics(seed: number, gain: (s: number) => number): OfflineSeed['arms'] {
  return {
    old: { solve: 0.5 + seed / 1000, retry: 0.2 },
    new: { solve: 0.5 + gain(seed) / 100 + seed / 1000, retry: 0.2 - seed / 100 },
  };
}

function toy(gain: (s: number) => number, calls: number[] = []): OfflineReport {
  return {
    kind: 'offline',
    name: 'toy-offline',
    question: 'Does new beat old?',
    design: ['One design paragraph.'],
    seeds: [1, 2, 3],
    arms: [
      { name: 'old', what: 'the old method' },
      { name: 'new', what: 'the new method' },
    ],
    metrics: [
      { name: 'solve', label: 'solve rate' },
      { name: 'retry', label: 'retry ratio' },
    ],
    comparisons: [
      { arm: 'new', against: 'old', metric: 'solve', direction: 'higher', claim: 'New solves more (Someone 2025).' },
      { arm: 'new', against: 'old', metric: 'retry', direction: 'lower', claim: 'New retries less (Someone 2025).' },
    ],
    minutes: 20,
    measure: async (_gpu, seed) => {
      calls.push(seed);
      return { arms: toyMetrics(seed, gain), details: { note: `seed ${seed} details` } };
    },
    describeSeed: (s) => [String((s.details as { note: string }).note)],
    fidelity: true,
  };
}

const seedsOf = (gain: (s: number) => number): OfflineSeed[] => [1, 2, 3].map((seed) => ({ seed, seconds: 1, arms: toyMetrics(seed, gain), details: {} }));

const fakeGpu = () => ({ destroyDevice() {} }) as unknown as Gpu;

describe('offline verdicts', () => {
  it('reproduce a steady gain in the claimed direction, contradict a steady loss, and leave noise inconclusive', () => {
    const gained = offlineOutcomes(
      toy(() => 10),
      seedsOf(() => 10),
    );
    expect(gained.map((o) => o.paired.verdict)).toEqual(['reproduces', 'reproduces']);
    for (const d of gained[0].paired.differences) expect(d).toBeCloseTo(0.1, 12);
    expect(gained[1].paired.differences.map((d) => +d.toFixed(12))).toEqual([-0.01, -0.02, -0.03]);
    expect(
      offlineOutcomes(
        toy(() => -10),
        seedsOf(() => -10),
      )[0].paired.verdict,
    ).toBe('contradicts');
    const noisy = (s: number) => [5, -6, 2][s - 1];
    expect(offlineOutcomes(toy(noisy), seedsOf(noisy))[0].paired.verdict).toBe('inconclusive');
  });

  it('count only the declared seeds, and refuse a seed without the metric', () => {
    const extra = [...seedsOf(() => 10), { seed: 9, seconds: 1, arms: toyMetrics(9, () => -90), details: {} }];
    expect(
      offlineOutcomes(
        toy(() => 10),
        extra,
      )[0].paired.differences,
    ).toHaveLength(3);
    const missing = seedsOf(() => 10);
    delete (missing[1].arms.new as Partial<Record<string, number>>).solve;
    expect(() =>
      offlineOutcomes(
        toy(() => 10),
        missing,
      ),
    ).toThrow(/seed 2 has no solve for arm new/);
  });
});

describe('the runner and the page', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  async function run(report: OfflineReport, options: { reportOnly?: boolean; dir?: string; secondsPerSeed?: number; budget?: number } = {}) {
    const docsDir = options.dir ?? (await mkdtemp(join(tmpdir(), 'horizon-offline-')));
    dirs.push(docsDir);
    let clock = 0;
    const measure = report.measure;
    const timed: OfflineReport = {
      ...report,
      measure: async (gpu, seed) => {
        clock += (options.secondsPerSeed ?? 60) * 1000;
        return measure(gpu, seed);
      },
    };
    let tables = 0;
    const out: string[] = [];
    await runOfflineReport({
      report: timed,
      docsDir,
      reportOnly: options.reportOnly ?? false,
      ...(options.budget !== undefined ? { budgetMinutes: options.budget } : {}),
      command: 'pnpm horizon experiment toy-offline',
      acquireGpu: async () => fakeGpu(),
      out: (l) => out.push(l),
      writeTable: async () => void tables++,
      now: () => clock,
    });
    return { docsDir, tables, out, page: await readFile(join(docsDir, `toy-offline${MD}`), 'utf8') };
  }

  it('shows the numbers the measurement gives, and other numbers for another measurement', async () => {
    const gained = await run(toy(() => 10));
    // The page and the table are rewritten after each seed.
    expect(gained.tables).toBe(3);
    expect(gained.page).toContain(
      '- *New solves more (Someone 2025).* **reproduces** — new − old on solve rate is +10.0 points (standard error 0.0, 3 paired seeds)',
    );
    expect(gained.page).toContain('| new | the new method | 60.2% ± 0.1 (1: 60.1%, 2: 60.2%, 3: 60.3%) | 18.0% ± 1.0 (1: 19.0%, 2: 18.0%, 3: 17.0%) |');
    expect(gained.page).toContain('| new − old | retry ratio | 1: −1.0, 2: −2.0, 3: −3.0 | −2.0 | 0.6 | reproduces |');
    expect(gained.page).toContain('- **Seed 2** (60 s):\n  - seed 2 details');
    const lost = await run(toy(() => -10));
    expect(lost.page).toContain('**contradicts** — new − old on solve rate is −10.0 points');
  });

  it('stores each seed, measures a stored seed never again, and rewrites the same page with --report-only', async () => {
    const calls: number[] = [];
    const first = await run(toy(() => 10, calls));
    expect(calls).toEqual([1, 2, 3]);
    const stored = await readOfflineResult(
      first.docsDir,
      toy(() => 10),
    );
    expect(stored?.seeds.map((s) => s.arms)).toEqual([1, 2, 3].map((s) => toyMetrics(s, () => 10)));
    const again = await run(
      toy(() => -10, calls),
      { dir: first.docsDir },
    );
    expect(calls).toEqual([1, 2, 3]);
    expect(again.page).toBe(first.page);
    const reportOnly = await run(
      toy(() => -10, calls),
      { dir: first.docsDir, reportOnly: true },
    );
    expect(reportOnly.page).toBe(first.page);
    await expect(
      run(
        toy(() => 10),
        { reportOnly: true },
      ),
    ).rejects.toThrow(/has no stored measurement/);
  });

  it('stops after the pilot seed when the rest would go over budget, keeping that seed, and goes on from there', async () => {
    const calls: number[] = [];
    const docsDir = await mkdtemp(join(tmpdir(), 'horizon-offline-'));
    await expect(
      run(
        toy(() => 10, calls),
        { dir: docsDir, secondsPerSeed: 600 },
      ),
    ).rejects.toThrow(/the 2 seeds left would take the run to 30\.0 min, over its budget of 20 min; seed 1 is stored/);
    expect(calls).toEqual([1]);
    const partial = await readFile(join(docsDir, `toy-offline${MD}`), 'utf8');
    expect(partial).toContain('Incomplete: 1 of 3 seeds measured');
    await run(
      toy(() => 10, calls),
      { dir: docsDir, secondsPerSeed: 600, budget: 60 },
    );
    expect(calls).toEqual([1, 2, 3]);
  });

  it('draws each arm’s mean and its seeds, closed and titled', () => {
    const svg = offlineSvg(
      toy(() => 10),
      seedsOf(() => 10),
    );
    expect(svg.match(/<circle /g)).toHaveLength(2 * 2 * 3);
    expect(svg).toContain('<title>new seed 3: 60.3%</title>');
    expect(svg.match(/<text /g)?.length).toBe(svg.match(/<\/text>/g)?.length);
  });

  it('gets a fidelity row per claim, incomplete while seeds are missing, or one saying it has not run', () => {
    const report = toy(() => 10);
    const table = fidelityMarkdown([
      {
        report,
        outcomes: offlineOutcomes(
          report,
          seedsOf(() => 10),
        ),
        seeds: 3,
        hasPage: true,
      },
      { report: { ...report, name: 'half-run' }, outcomes: offlineOutcomes(report, seedsOf(() => 10).slice(0, 1)), seeds: 1, hasPage: true },
      { report: { ...report, name: 'unrun' }, outcomes: [], seeds: 0, hasPage: false },
    ]);
    expect(table).toContain(`| [toy-offline](toy-offline${MD}) | new vs old (solve rate): New solves more (Someone 2025). | reproduces | 3 |`);
    expect(table).toContain('| new vs old (retry ratio): New retries less (Someone 2025). | reproduces | 3 |');
    expect(table).toContain('| incomplete (1 of 3 seeds; inconclusive so far) | 1 |');
    expect(table).toContain('| unrun | New solves more (Someone 2025). | not run yet | — |');
  });
});

describe('the declared span-kto report', () => {
  it('keeps the protocol: at least 3 seeds, every compared arm and metric declared, listed by name', () => {
    expect(OFFLINE_REPORTS.map((r) => r.name)).toContain('span-kto');
    for (const report of OFFLINE_REPORTS) {
      expect(reportByName(report.name)).toBe(report);
      expect(REPORT_NAMES).toContain(report.name);
      expect(report.seeds.length).toBeGreaterThanOrEqual(3);
      const arms = report.arms.map((a) => a.name);
      const metrics = report.metrics.map((m) => m.name);
      for (const c of report.comparisons) {
        expect(arms).toContain(c.arm);
        expect(arms).toContain(c.against);
        expect(metrics).toContain(c.metric);
      }
    }
  });
});

describe('the solve rate', () => {
  const turn = (round: number, correct: boolean, retry = false): DialogTurnRecord => ({
    round,
    retry,
    question: '1+2=',
    expected: '3',
    answer: correct ? '3' : '4',
    correct,
    feedback: correct ? 'neutral' : 'negative',
    negative: correct ? null : 'execution',
    flipped: false,
  });

  it('counts a request by its last answer: a retry that fixes it solves it, one that breaks it does not', () => {
    const fixed = [turn(0, false), turn(0, true, true), turn(1, true)];
    const broken = [turn(0, true), turn(0, false, true), turn(1, false)];
    expect(solveRate([fixed])).toBe(1);
    expect(solveRate([broken])).toBe(0);
    expect(solveRate([fixed, broken])).toBe(0.5);
    expect(solveRate([])).toBeNaN();
  });
});
