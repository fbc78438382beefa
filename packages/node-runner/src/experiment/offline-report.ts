// An offline report: the kind of experiment whose arms train offline on one fixed log per seed
// (no rollouts of their own during training) and are then scored on the same held-out problems —
// span-level KTO against its weighted-SFT baselines, as its source trains on one round of its SFT
// policy's conversations. The protocol keeps what the training reports' protocol
// (docs/experiments/README.md) asks where it applies: declared in code, at least 3 seeds, arms
// paired by seed (one SFT policy, one log, one minibatch order and one held-out set per seed), a
// verdict per claim from the paired differences against 2 standard errors, and each seed's
// measurement stored under docs/experiments/data/<name>/ as soon as it is done, so a stopped run
// loses at most the seed in flight and the page is rewritten from a clone (`--report-only`).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Gpu } from '@horizon/kernels';
import { type PairedDifference, pairedDifference } from './verdict.ts';

export interface OfflineComparison {
  arm: string;
  against: string;
  metric: string;
  /** Which way the claim says `arm − against` goes. */
  direction: 'higher' | 'lower';
  /** The claim, with its source named. */
  claim: string;
}

export interface OfflineReport {
  kind: 'offline';
  name: string;
  question: string;
  /** Paragraphs of the page's design section: what is held equal, the sizes, what is left out and why. */
  design: readonly string[];
  seeds: readonly number[];
  /** Every arm, in the order the page lists them, with what it is. */
  arms: readonly { name: string; what: string }[];
  /** Every metric a seed's measurement gives each arm, with its label; all are shares in [0, 1]. */
  metrics: readonly { name: string; label: string }[];
  comparisons: readonly OfflineComparison[];
  /** Declared minutes for all seeds on a quiet 2-core machine (SwiftShader). */
  minutes: number;
  /** Measures one seed: every arm's metrics, and details the page shows per seed. */
  measure(gpu: Gpu, seed: number): Promise<OfflineMeasurement>;
  /** Lines of the page about one seed's details (e.g. the log it trained on), as Markdown list items. */
  describeSeed(seed: OfflineSeed): string[];
  fidelity: true;
}

export interface OfflineMeasurement {
  /** arm → metric → value. */
  arms: Record<string, Record<string, number>>;
  /** Report-specific figures the page shows per seed (JSON). */
  details: Record<string, unknown>;
}

/** One seed's stored measurement. */
export interface OfflineSeed extends OfflineMeasurement {
  seed: number;
  /** Wall seconds the seed took, on the machine as it was. */
  seconds: number;
}

/** What docs/experiments/data/<name>/result.json holds: the seeds measured so far, in seed order. */
export interface OfflineResult {
  report: string;
  seeds: OfflineSeed[];
}

export const OFFLINE_RESULT_FILE = 'result.json';

export const isOffline = (report: { name: string }): report is OfflineReport => (report as Partial<OfflineReport>).kind === 'offline';

/** The stored measurement of `report` under `docsDir`, or undefined when it was never run. */
export async function readOfflineResult(docsDir: string, report: OfflineReport): Promise<OfflineResult | undefined> {
  try {
    return JSON.parse(await readFile(join(docsDir, 'data', report.name, OFFLINE_RESULT_FILE), 'utf8')) as OfflineResult;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A metric of an arm on a seed; an error naming what is missing, since a page must not show a gap as a number. */
export function metricOf(seed: OfflineSeed, arm: string, metric: string): number {
  const value = seed.arms[arm]?.[metric];
  if (value === undefined) throw new RangeError(`seed ${seed.seed} has no ${metric} for arm ${arm}`);
  return value;
}

export interface OfflineOutcome {
  comparison: OfflineComparison;
  paired: PairedDifference;
}

/** Each comparison's paired difference over the stored seeds (the seeds of the declaration only). */
export function offlineOutcomes(report: OfflineReport, seeds: readonly OfflineSeed[]): OfflineOutcome[] {
  const declared = seeds.filter((s) => report.seeds.includes(s.seed));
  return report.comparisons.map((comparison) => ({
    comparison,
    paired: pairedDifference(
      declared.map((s) => metricOf(s, comparison.arm, comparison.metric)),
      declared.map((s) => metricOf(s, comparison.against, comparison.metric)),
      comparison.direction,
    ),
  }));
}
