// Training metrics of a report: a run's means are over its RL iterations only (not SFT or eval
// rows); a finished run that lacks one gets it from its metrics.jsonl, written back to result.json;
// a run with every metric, or with no log, is left as it is.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatHeaderLine, formatMetricsLine } from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from './report.ts';
import { RESULT_FILE, type RunResult } from './results.ts';
import { TrainingMeans, withTrainingMeans } from './training-means.ts';

const scratch = mkdtempSync(join(tmpdir(), 'horizon-training-means-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const report = { trainingMetrics: [{ name: 'critic/explained_var', label: 'explained variance' }] } as unknown as Report;
const result: RunResult = {
  key: 'k',
  report: 'r',
  arm: 'a',
  seed: 1,
  curve: [{ iteration: 0, sampledTokens: 0, heldOut: 0.25, ood: 0, seconds: 0 }],
  final: { heldOut: 0.25, ood: 0 },
  seconds: 1,
  sampledTokens: 0,
};

const rows = [
  { phase: 'sft' as const, step: 1, metrics: { 'critic/explained_var': 9 } },
  { phase: 'rl' as const, step: 1, metrics: { 'critic/explained_var': 0.2 } },
  { phase: 'eval' as const, step: 1, metrics: { 'critic/explained_var': 9 } },
  { phase: 'rl' as const, step: 2, metrics: { 'critic/explained_var': 0.4, 'policy/loss': 1 } },
];

describe('training means', () => {
  it('averages the named metrics over RL iterations only', () => {
    const means = new TrainingMeans(['critic/explained_var', 'critic/value_loss']);
    expect(means.means()).toBeUndefined();
    for (const r of rows) means.add(r.phase, r.metrics);
    const got = means.means() as Record<string, number>;
    expect(Object.keys(got)).toEqual(['critic/explained_var']);
    expect(got['critic/explained_var']).toBeCloseTo(0.3, 12);
  });

  it('fills a finished run from its log and rewrites result.json; leaves a complete one alone', async () => {
    const dir = join(scratch, 'run');
    mkdirSync(dir, { recursive: true });
    const log = [formatHeaderLine({ name: 'x' }), ...rows.map((r, i) => formatMetricsLine({ ...r, global_step: i, time_s: i }))];
    writeFileSync(join(dir, 'metrics.jsonl'), log.join(''));
    writeFileSync(join(dir, RESULT_FILE), JSON.stringify(result));
    const filled = await withTrainingMeans(report, dir, result);
    expect(filled.training?.['critic/explained_var']).toBeCloseTo(0.3, 12);
    expect(JSON.parse(readFileSync(join(dir, RESULT_FILE), 'utf8')).training['critic/explained_var']).toBeCloseTo(0.3, 12);
    const complete = { ...result, training: { 'critic/explained_var': 0.9 } };
    expect(await withTrainingMeans(report, dir, complete)).toBe(complete);
  });

  it('a run without a log stays as it is', async () => {
    const dir = join(scratch, 'sft-only');
    mkdirSync(dir, { recursive: true });
    expect(await withTrainingMeans(report, dir, result)).toBe(result);
  });
});
