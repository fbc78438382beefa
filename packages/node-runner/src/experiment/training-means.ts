// A run's mean of chosen RL-iteration metrics (e.g. critic/explained_var for critic-k), for the
// report page's training table: what the held-out curves cannot show about how an arm trained.
// The mean is over every RL iteration that logged the metric, kept in result.json. A run finished
// before its report named a metric gets it from its own metrics.jsonl (the figures are the run's
// log, read after the fact), so naming one does not make a report rerun.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type MetricName, parseMetricsLog } from '@horizon/core';
import type { Report } from './report.ts';
import { type RunResult, writeResult } from './results.ts';

/** Sums of the named metrics over RL iterations, as they are logged. */
export class TrainingMeans {
  private readonly sums = new Map<string, { sum: number; n: number }>();

  constructor(private readonly names: readonly MetricName[]) {}

  add(phase: string, metrics: Readonly<Partial<Record<string, number>>>): void {
    if (phase !== 'rl') return;
    for (const name of this.names) {
      const value = metrics[name];
      if (value === undefined || !Number.isFinite(value)) continue;
      const s = this.sums.get(name) ?? { sum: 0, n: 0 };
      s.sum += value;
      s.n += 1;
      this.sums.set(name, s);
    }
  }

  /** The means of the metrics that were logged at least once; undefined when none was. */
  means(): Record<string, number> | undefined {
    if (this.sums.size === 0) return undefined;
    return Object.fromEntries([...this.sums].map(([name, s]) => [name, s.sum / s.n]));
  }
}

/** The report's training-metric names (none for most reports). */
export const trainingMetricNames = (report: Report): MetricName[] => (report.trainingMetrics ?? []).map((m) => m.name);

/**
 * A finished run's result with every training metric the report names: as it is if it has them,
 * else with the means read from the run's metrics.jsonl and result.json rewritten. A run with no
 * log (an SFT-only arm) or a metric its log never has stays as it is.
 */
export async function withTrainingMeans(report: Report, dir: string, result: RunResult): Promise<RunResult> {
  const names = trainingMetricNames(report);
  if (names.every((name) => result.training?.[name] !== undefined)) return result;
  let text: string;
  try {
    text = await readFile(join(dir, 'metrics.jsonl'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw error;
  }
  const means = new TrainingMeans(names);
  for (const record of parseMetricsLog(text, join(dir, 'metrics.jsonl')).records) means.add(record.phase, record.metrics);
  const found = means.means();
  if (!found || Object.keys(found).every((name) => result.training?.[name] !== undefined)) return result;
  const updated: RunResult = { ...result, training: { ...result.training, ...found } };
  await writeResult(dir, updated);
  return updated;
}
