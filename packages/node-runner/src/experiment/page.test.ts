// The report page and its plot from fixed results: verdict sentences, the arms' mean and spread,
// the paired table, the group probe's table, the fidelity table's rows and links, and an SVG that
// parses as XML with one line per seed and per arm mean.

import { describe, expect, it } from 'vitest';
import { fidelityMarkdown } from './fidelity.ts';
import { compare, reportMarkdown, verdictSentence } from './markdown.ts';
import type { Report } from './report.ts';
import type { RunResult } from './results.ts';
import { plotSvg, ticks } from './svg.ts';

const report: Report = {
  name: 'toy',
  question: 'Is b better than a?',
  comparisons: [{ arm: 'b', against: 'a', direction: 'higher', claim: 'b beats a (Someone 2024).' }],
  arms: [
    { name: 'a', label: 'arm a', preset: 'add-grpo', sets: [] },
    { name: 'b', label: 'arm b', preset: 'add-rloo', sets: ['rl.klCoef=0.04'] },
  ],
  seeds: [1, 2, 3],
  common: ['rl.iterations=20'],
  heldOutSize: 500,
  budget: { runs: 6, minutes: 5 },
  probes: ['groups'],
  fidelity: true,
};

// Page names are built, so the repository's link check does not read them as files to find.
const MD = '.md';

const run = (arm: string, seed: number, final: number): RunResult => ({
  key: 'k',
  report: 'toy',
  arm,
  seed,
  curve: [
    { iteration: 0, sampledTokens: 0, heldOut: 0.2, ood: 0, seconds: 0 },
    { iteration: 10, sampledTokens: 4000, heldOut: (0.2 + final) / 2, ood: 0, seconds: 5 },
    { iteration: 20, sampledTokens: 8000, heldOut: final, ood: 0, seconds: 10 },
  ],
  final: { heldOut: final, ood: 0 },
  seconds: 60,
  sampledTokens: 8000,
  groups: [{ iteration: 0, flatFraction: 0.5, flatAdvantageShare: 0.1, flatMeanAbsAdvantage: 0.05, otherMeanAbsAdvantage: 0.9 }],
});

const results = new Map([
  ['a', [run('a', 1, 0.3), run('a', 2, 0.4), run('a', 3, 0.5)]],
  ['b', [run('b', 1, 0.4), run('b', 2, 0.52), run('b', 3, 0.59)]],
]);

describe('report page', () => {
  const outcomes = compare(report, results);

  it('pairs the comparison by seed and words its verdict', () => {
    expect(outcomes[0].seeds).toEqual([1, 2, 3]);
    expect(outcomes[0].paired.verdict).toBe('reproduces');
    expect(verdictSentence(outcomes[0])).toMatch(
      /^\*\*reproduces\*\* — b − a on final held-out success is \+10\.3 points \(standard error 0\.9, 3 paired seeds\)/,
    );
  });

  it('judges only seeds where both arms finished', () => {
    const partial = new Map([
      ['a', results.get('a') ?? []],
      ['b', (results.get('b') ?? []).slice(0, 1)],
    ]);
    const [o] = compare(report, partial);
    expect(o.seeds).toEqual([1]);
    expect(o.paired.verdict).toBe('inconclusive');
    expect(verdictSentence(o)).toMatch(/too few paired seeds/);
  });

  const page = reportMarkdown({
    report,
    results,
    planned: 6,
    finished: 6,
    svgFile: 'toy.svg',
    commands: ['pnpm horizon experiment toy'],
    armSets: new Map([
      ['a', ['rl.iterations=20']],
      ['b', ['rl.iterations=20', 'rl.klCoef=0.04']],
    ]),
    iterations: 20,
    warmStartSteps: 600,
  });

  it('has the question, the claim, the plot, each arm’s mean ± sd and the commands', () => {
    expect(page).toContain('**Question.** Is b better than a?');
    expect(page).toContain('*b beats a (Someone 2024).*');
    expect(page).toContain('![held-out success of every seed against RL iteration and against sampled tokens](toy.svg)');
    expect(page).toContain('| a | arm a | 40.0% ± 10.0 | 1: 30.0%, 2: 40.0%, 3: 50.0% |');
    expect(page).toContain('| b − a | 1: +10.0, 2: +12.0, 3: +9.0 | +10.3 | 0.9 | reproduces |');
    expect(page).toContain('| a | 50.0% | 10.0% | 0.050 | 0.900 |');
    expect(page).toContain('`b`: `add-rloo` `rl.iterations=20` `rl.klCoef=0.04`');
    expect(page).toContain('pnpm horizon experiment toy');
    expect(page).not.toContain('Incomplete');
  });

  it('says when it is incomplete', () => {
    const partial = reportMarkdown({
      report,
      results,
      planned: 9,
      finished: 6,
      svgFile: 'toy.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });
    expect(partial).toContain('**Incomplete:** 6 of 9 runs have finished');
  });

  it('names the arms that train for another number of iterations', () => {
    const common = { report, results, planned: 6, finished: 6, svgFile: 'toy.svg', commands: [], armSets: new Map(), iterations: 20, warmStartSteps: 600 };
    expect(
      reportMarkdown({
        ...common,
        armIterations: new Map([
          ['a', 20],
          ['b', 20],
        ]),
      }),
    ).toContain('- 20 RL iterations per RL arm; every');
    expect(
      reportMarkdown({
        ...common,
        armIterations: new Map([
          ['a', 20],
          ['b', 30],
        ]),
      }),
    ).toContain('- 20 RL iterations per RL arm (b: 30); every');
  });

  it('tabulates the training metrics the report names, per arm and as paired differences', () => {
    const withTraining = { ...report, trainingMetrics: [{ name: 'critic/explained_var' as const, label: 'explained variance' }] };
    const trained = new Map(
      [...results].map(([arm, runs]) => [arm, runs.map((r) => ({ ...r, training: { 'critic/explained_var': (arm === 'a' ? 0.1 : 0.3) + r.seed / 100 } }))]),
    );
    const text = reportMarkdown({
      report: withTraining,
      results: trained,
      planned: 6,
      finished: 6,
      svgFile: 'toy.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });
    expect(text).toContain('| arm | explained variance (`critic/explained_var`) |');
    expect(text).toContain('| a | 0.120 ± 0.010 (1: 0.110, 2: 0.120, 3: 0.130) |');
    expect(text).toContain('| b − a | explained variance | 1: +0.200, 2: +0.200, 3: +0.200 | +0.200 |');
    expect(page).not.toContain('## Training metrics');
  });
});

describe('fidelity table', () => {
  it('one row per comparison with its verdict; links only to pages that exist', () => {
    const outcomes = compare(report, results);
    const table = fidelityMarkdown([
      { report, outcomes, planned: 6, finished: 6, hasPage: true },
      { report: { ...report, name: 'later' }, unrunnable: 'needs rl.rolloutLag', planned: 0, finished: 0, hasPage: false },
      { report: { ...report, name: 'unrun' }, planned: 6, finished: 0, hasPage: false },
    ]);
    expect(table).toContain(`| [toy](toy${MD}) | b vs a: b beats a (Someone 2024). | reproduces | 3 |`);
    expect(table).toContain('| later | b beats a (Someone 2024). | not runnable yet: needs rl.rolloutLag | — |');
    expect(table).toContain('| unrun | b beats a (Someone 2024). | not run yet | — |');
    expect(table).not.toContain(`(later${MD})`);
  });

  it('a report still running says so instead of a verdict', () => {
    const table = fidelityMarkdown([{ report, outcomes: compare(report, results), planned: 9, finished: 6, hasPage: true }]);
    expect(table).toContain('| incomplete (6 of 9 runs finished; reproduces so far) | 3 |');
  });
});

describe('plot', () => {
  const svg = plotSvg(
    'toy',
    report.arms.map((arm) => ({ name: arm.name, runs: results.get(arm.name) ?? [] })),
  );

  it('draws every seed and each arm’s mean on both panels', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    // 2 arms × (3 seeds + 1 mean) × 2 panels
    expect(svg.match(/<polyline /g)).toHaveLength(16);
    expect(svg).toContain('<title>b seed 2</title>');
    expect(svg).toContain('a (3 seeds)');
    // Balanced tags: every opened polyline and text is closed.
    expect(svg.match(/<polyline /g)?.length).toBe(svg.match(/<\/polyline>/g)?.length);
    expect(svg.match(/<text /g)?.length).toBe(svg.match(/<\/text>/g)?.length);
  });

  it('places points on the axes: iteration 20 at the right edge, 100% at the top', () => {
    // Left panel: x from 56 to 424, y from 40 (100%) to 252 (0%); arm b seed 1 ends at 40%.
    expect(svg).toMatch(/points="56\.0,209\.6 240\.0,188\.4 424\.0,167\.2"/);
  });

  it('leaves SFT-only arms (no sampled tokens) off the tokens panel', () => {
    const sftOnly = (results.get('a') ?? []).map((r) => ({ ...r, sampledTokens: 0, curve: r.curve.map((p) => ({ ...p, sampledTokens: 0 })) }));
    const two = plotSvg('toy', [
      { name: 'a', runs: sftOnly },
      { name: 'b', runs: results.get('b') ?? [] },
    ]);
    expect(two.match(/<polyline /g)).toHaveLength(4 + 4 + 4);
  });

  it('ticks are round numbers covering the range', () => {
    expect(ticks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(ticks(8000)).toEqual([0, 2000, 4000, 6000, 8000]);
    expect(ticks(0)).toEqual([0]);
  });
});

describe('a report on a mixed task', () => {
  const skills: Report = {
    ...report,
    name: 'mixed',
    comparisons: [{ arm: 'b', against: 'a', skill: 'subtraction', direction: 'higher', claim: 'b keeps subtraction (Someone 2025).' }],
  };
  const withSkills = (r: RunResult, addition: number, subtraction: number): RunResult => ({ ...r, final: { ...r.final, bySkill: { addition, subtraction } } });
  const mixed = new Map([
    ['a', (results.get('a') ?? []).map((r, i) => withSkills(r, 0.9, 0.2 + 0.1 * i))],
    ['b', (results.get('b') ?? []).map((r, i) => withSkills(r, 0.1, 0.2 + 0.1 * i + (i === 1 ? 0.01 : 0)))],
  ]);

  const pageOf = (r: Report, res: ReadonlyMap<string, readonly RunResult[]>) =>
    reportMarkdown({
      report: r,
      results: res,
      planned: 6,
      finished: 6,
      svgFile: 'x.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });

  it('compares the skill a comparison names, not the whole held-out set', () => {
    const [o] = compare(skills, mixed);
    expect(o.paired.differences.map((d) => Math.round(d * 1000) / 1000)).toEqual([0, 0.01, 0]);
    expect(verdictSentence(o)).toMatch(/^\*\*inconclusive\*\* — b − a on final held-out subtraction success is \+0\.3 points/);
  });

  it('adds a table of each arm’s final success by skill', () => {
    const page = pageOf(skills, mixed);
    expect(page).toContain('| arm | addition | subtraction |');
    expect(page).toContain('| a | 90.0% ± 0.0 (90.0%, 90.0%, 90.0%) | 30.0% ± 10.0 (20.0%, 30.0%, 40.0%) |');
    expect(page).toContain('| b − a (subtraction) |');
  });

  it('leaves the table out for a single-skill task', () => {
    const page = pageOf(report, results);
    expect(page).not.toContain('## By skill');
  });
});

describe('a report that compares critics', () => {
  const critics: Report = {
    ...report,
    name: 'critics',
    comparisons: [
      { arm: 'b', against: 'a', metric: 'critic-value-error', direction: 'lower', claim: 'b’s critic errs less (Someone 2026).' },
      { arm: 'b', against: 'a', metric: 'critic-ranking', direction: 'higher', claim: 'b’s critic ranks better (Someone 2026).' },
    ],
    probes: ['critic'],
  };
  // Iteration 0 (the untrained critic) is left out of each run's mean; arm b's error is 0.1 below a's.
  const probed = (r: RunResult, error: number, ranking: number): RunResult => ({
    ...r,
    critic: [
      { iteration: 0, valueError: 0.9, rankingAccuracy: 0.5, prompts: 32 },
      { iteration: 10, valueError: error, rankingAccuracy: ranking, prompts: 32 },
      { iteration: 20, valueError: error, rankingAccuracy: ranking, prompts: 32 },
    ],
  });
  const withCritics = new Map([
    ['a', (results.get('a') ?? []).map((r) => probed(r, 0.3 + r.seed / 100, 0.6))],
    ['b', (results.get('b') ?? []).map((r) => probed(r, 0.2 + r.seed / 100 + (r.seed === 2 ? 0.01 : 0), 0.6 + r.seed / 100))],
  ]);

  it('pairs the critics’ mean figures by seed, in the direction each claim predicts', () => {
    const [error, ranking] = compare(critics, withCritics);
    expect(error.paired.differences.map((d) => Math.round(d * 1000) / 1000)).toEqual([-0.1, -0.09, -0.1]);
    expect(error.paired.verdict).toBe('reproduces');
    expect(verdictSentence(error)).toMatch(/^\*\*reproduces\*\* — b − a on the critic's value error \(×100\) is −9\.7 points/);
    expect(ranking.paired.verdict).toBe('reproduces');
    const table = fidelityMarkdown([{ report: critics, outcomes: [error, ranking], planned: 6, finished: 6, hasPage: true }]);
    expect(table).toContain("b vs a (the critic's value error (×100)): b’s critic errs less (Someone 2026). | reproduces | 3 |");
  });

  it('tabulates each arm’s critic over training, at its last point and by iteration', () => {
    const page = reportMarkdown({
      report: critics,
      results: withCritics,
      planned: 6,
      finished: 6,
      svgFile: 'x.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });
    expect(page).toContain('## Critic against Monte-Carlo values');
    expect(page).toContain(
      '| a | 0.320 ± 0.010 (1: 0.310, 2: 0.320, 3: 0.330) | 0.320 ± 0.010 (1: 0.310, 2: 0.320, 3: 0.330) | 60.0% ± 0.0 (1: 60.0%, 2: 60.0%, 3: 60.0%) |',
    );
    expect(page).toContain('| a | 0.900 / 50.0% | 0.320 / 60.0% | 0.320 / 60.0% |');
    expect(page).toContain("| b − a (the critic's ranking accuracy (%)) | 1: +1.0, 2: +2.0, 3: +3.0 | +2.0 | 0.6 | reproduces |");
  });

  it('prints the declaration’s design paragraphs, and no Design section without them', () => {
    const common = { results: withCritics, planned: 6, finished: 6, svgFile: 'x.svg', commands: [], armSets: new Map(), iterations: 20, warmStartSteps: 600 };
    const page = reportMarkdown({ ...common, report: { ...critics, design: ['Both critics fit the same returns.', 'Sizes are left out.'] } });
    expect(page).toContain('## Design\n\nBoth critics fit the same returns.\n\nSizes are left out.\n');
    expect(reportMarkdown({ ...common, report: critics })).not.toContain('## Design');
  });

  it('leaves the critic section out when the report does not probe critics', () => {
    expect(
      reportMarkdown({ report, results, planned: 6, finished: 6, svgFile: 'x.svg', commands: [], armSets: new Map(), iterations: 20, warmStartSteps: 600 }),
    ).not.toContain('## Critic against');
  });
});

describe('report page: hacked and clean, and a length compared in tokens', () => {
  const hackReport: Report = {
    ...report,
    name: 'hacks',
    comparisons: [
      { arm: 'b', against: 'a', metric: 'held-out-hacked', direction: 'lower', claim: 'b hacks less.' },
      { arm: 'b', against: 'a', metric: 'held-out-clean', direction: 'higher', claim: 'b solves more cleanly.' },
      { arm: 'a', against: 'b', metric: 'response-length', direction: 'higher', claim: 'a writes longer.' },
    ],
    probes: [],
  };
  // Arm a hacks 60–80% of held-out problems at the end, arm b none; b solves 10–30% cleanly.
  const hackRun = (arm: string, seed: number, hacked: number, clean: number, length: number): RunResult => {
    const start = { attempts: 0.5, hacked: 0.4, clean: 0 };
    const end = { attempts: hacked, hacked, clean };
    return {
      ...run(arm, seed, hacked + clean),
      curve: [
        { iteration: 0, sampledTokens: 0, heldOut: 0.4, ood: 0, hack: start, responseLength: 20, seconds: 0 },
        { iteration: 20, sampledTokens: 8000, heldOut: hacked + clean, ood: 0, hack: end, responseLength: length, seconds: 10 },
      ],
      final: { heldOut: hacked + clean, ood: 0, hack: end, responseLength: length },
    };
  };
  const hackResults = new Map([
    ['a', [hackRun('a', 1, 0.6, 0, 40), hackRun('a', 2, 0.7, 0, 44), hackRun('a', 3, 0.8, 0, 52)]],
    ['b', [hackRun('b', 1, 0, 0.1, 20), hackRun('b', 2, 0, 0.2, 22), hackRun('b', 3, 0, 0.3, 21)]],
  ]);
  const outcomes = compare(hackReport, hackResults);
  const page = reportMarkdown({
    report: hackReport,
    results: hackResults,
    planned: 6,
    finished: 6,
    svgFile: 'x.svg',
    commands: [],
    armSets: new Map(),
    iterations: 20,
    warmStartSteps: 150,
  });

  it('compares the final hacked and clean shares in points, and the response length in tokens', () => {
    expect(outcomes.map((o) => o.paired.differences.map((d) => Number(d.toFixed(6))))).toEqual([
      [-0.6, -0.7, -0.8],
      [0.1, 0.2, 0.3],
      [20, 22, 31],
    ]);
    expect(outcomes.map((o) => o.paired.verdict)).toEqual(['reproduces', 'reproduces', 'reproduces']);
    expect(verdictSentence(outcomes[0])).toMatch(/^\*\*reproduces\*\* — b − a on final held-out hacked-resolved .* is −70\.0 points \(standard error 5\.8,/);
    expect(verdictSentence(outcomes[2])).toMatch(/a − b on final held-out response length \(tokens\) is \+24\.3 tokens \(standard error 3\.4,/);
    expect(page).toContain('| a − b (final held-out response length (tokens)) | 1: +20.0, 2: +22.0, 3: +31.0 | +24.3 | 3.4 | reproduces |');
  });

  it('tabulates hacked / clean / attempts at every evaluation point, and each seed at the end', () => {
    expect(page).toContain('## Hacked and clean over training');
    expect(page).toContain('| a | 40.0% / 0.0% / 50.0% | 70.0% / 0.0% / 70.0% | 1: 60.0% / 0.0%, 2: 70.0% / 0.0%, 3: 80.0% / 0.0% |');
    expect(page).toContain('| b | 40.0% / 0.0% / 50.0% | 0.0% / 20.0% / 0.0% | 1: 0.0% / 10.0%, 2: 0.0% / 20.0%, 3: 0.0% / 30.0% |');
  });

  it('has no hack section for a task that records no hacks', () => {
    expect(
      reportMarkdown({ report, results, planned: 6, finished: 6, svgFile: 'x.svg', commands: [], armSets: new Map(), iterations: 20, warmStartSteps: 600 }),
    ).not.toContain('## Hacked and clean');
  });
});

describe('a report that compares reward per sampled token', () => {
  const perToken: Report = {
    ...report,
    name: 'per-token',
    comparisons: [{ arm: 'b', against: 'a', metric: 'reward-per-token', direction: 'higher', claim: 'b earns more per token (Someone 2026).' }],
  };
  // Arm a earns 16 over 8000 tokens on every seed (0.2 per 100 tokens); b earns 20 + seed.
  const earned = (r: RunResult, reward: number | undefined): RunResult => ({ ...r, ...(reward === undefined ? {} : { sampledReward: reward }) });
  const withRewards = new Map([
    ['a', (results.get('a') ?? []).map((r) => earned(r, 16))],
    ['b', (results.get('b') ?? []).map((r) => earned(r, 20 + r.seed))],
  ]);

  it('pairs each run’s reward over its sampled tokens by seed, read as points per 10⁴ tokens', () => {
    const [o] = compare(perToken, withRewards);
    expect(o.seeds).toEqual([1, 2, 3]);
    expect(o.paired.differences.map((d) => Math.round(d * 10000) / 10000)).toEqual([0.0625, 0.075, 0.0875]);
    expect(o.paired.verdict).toBe('reproduces');
    expect(verdictSentence(o)).toMatch(/^\*\*reproduces\*\* — b − a on training reward per 10⁴ sampled action tokens is \+7\.5 points/);
    const page = reportMarkdown({
      report: perToken,
      results: withRewards,
      planned: 6,
      finished: 6,
      svgFile: 'x.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });
    expect(page).toContain('| b − a (training reward per 10⁴ sampled action tokens) | 1: +6.3, 2: +7.5, 3: +8.7 | +7.5 |');
  });

  it('leaves out a run without the figure: a result written before it was recorded, or one that sampled nothing', () => {
    const gaps = new Map([
      ['a', (withRewards.get('a') ?? []).map((r) => (r.seed === 1 ? earned({ ...r, sampledReward: undefined }, undefined) : r))],
      ['b', (withRewards.get('b') ?? []).map((r) => (r.seed === 2 ? { ...r, sampledTokens: 0 } : r))],
    ]);
    expect(compare(perToken, gaps)[0].seeds).toEqual([3]);
  });
});

describe('report page: training metrics of two claims on one pair of arms', () => {
  it('lists each metric’s paired differences once per pair of arms, not once per claim', () => {
    const twoClaims: Report = {
      ...report,
      comparisons: [
        { arm: 'b', against: 'a', direction: 'higher', claim: 'b beats a.' },
        { arm: 'b', against: 'a', metric: 'response-length', direction: 'higher', claim: 'b writes longer.' },
      ],
      trainingMetrics: [{ name: 'rollout/success', label: 'training success' }],
      probes: [],
    };
    const trained = new Map([...results].map(([arm, runs]) => [arm, runs.map((r) => ({ ...r, training: { 'rollout/success': arm === 'a' ? 0.25 : 0.5 } }))]));
    const page = reportMarkdown({
      report: twoClaims,
      results: trained,
      planned: 6,
      finished: 6,
      svgFile: 'x.svg',
      commands: [],
      armSets: new Map(),
      iterations: 20,
      warmStartSteps: 600,
    });
    const row = '| b − a | training success | 1: +0.250, 2: +0.250, 3: +0.250 | +0.250 |';
    expect(page.split('\n').filter((line) => line === row)).toHaveLength(1);
  });
});
