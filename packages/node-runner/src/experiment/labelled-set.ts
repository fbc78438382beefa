// A labelled-set report: the kind of experiment that trains nothing. It scores a two-stage
// detector — a rule stage tuned for recall, then a judge meant to restore precision (the design
// GLM-5.2 and Qwen's "Verification Horizon" describe; here the anti-hack monitor, docs/monitor.md)
// — on a set of calls labelled by construction, one set drawn per seed. The protocol keeps what the
// training reports' protocol (docs/experiments/README.md) asks where it applies: declared in code,
// at least 3 seeds, paired by seed (both stages score the same calls), a verdict from the paired
// differences against 2 standard errors, the measurement stored under docs/experiments/data/ so
// the page and the fidelity row are rewritten from it. Arms, warm starts, budgets and held-out
// problems do not apply: nothing is trained, and a seed takes seconds on a CPU.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CallGroup, type PrecisionReport, precisionReport, type ScoredCall } from '@horizon/core';
import { type PairedDifference, pairedDifference, type Verdict } from './verdict.ts';

export interface LabelledSetReport {
  kind: 'labelled-set';
  name: string;
  question: string;
  /** The claim, with its source named: the second stage raises precision and keeps recall. */
  claim: string;
  /** What the two stages are, for the page. */
  stages: { rules: string; judged: string };
  seeds: readonly number[];
  /** The rule names the per-rule table lists, in order. */
  rules: readonly string[];
  /** Draws the seed's labelled set and scores it: every call with its label and decision. */
  measure(seed: number): Promise<ScoredCall[]>;
  /** One line per group the set holds, saying what it is, for the page. */
  groups: Readonly<Record<CallGroup, string>>;
  fidelity: true;
}

export const isLabelledSet = (report: { name: string }): report is LabelledSetReport => (report as Partial<LabelledSetReport>).kind === 'labelled-set';

/** One seed's measurement: every call with its label and the monitor's decision (precision and recall are computed from these, never stored). */
export interface LabelledSeed {
  seed: number;
  scored: ScoredCall[];
  /** Wall seconds to draw and score the set. */
  seconds: number;
}

/** A seed's precision and recall, from its scored calls. */
export const seedScores = (report: LabelledSetReport, seed: LabelledSeed): PrecisionReport => precisionReport(seed.scored, report.rules);

/** What docs/experiments/data/<name>/result.json holds. */
export interface LabelledSetResult {
  report: string;
  seeds: LabelledSeed[];
}

export const LABELLED_RESULT_FILE = 'result.json';

/** The stored measurement of `report` under `docsDir`, or undefined when it was never run. */
export async function readLabelledResult(docsDir: string, report: LabelledSetReport): Promise<LabelledSetResult | undefined> {
  try {
    const text = await readFile(join(docsDir, 'data', report.name, LABELLED_RESULT_FILE), 'utf8');
    return JSON.parse(text) as LabelledSetResult;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface LabelledVerdict {
  verdict: Verdict;
  /** Rules + judge − rules, per seed: precision (claimed higher) and recall (claimed not lower). */
  precision: PairedDifference;
  recall: PairedDifference;
}

/**
 * The claim reproduces when the precision gain is more than 2 standard errors above zero and the
 * recall loss is not more than 2 standard errors below it; it is contradicted when recall drops by
 * more than that (every seed losing the same calls has standard error 0, so any steady loss counts)
 * or precision falls by more than that; otherwise it is inconclusive.
 */
export function labelledVerdict(scores: readonly PrecisionReport[]): LabelledVerdict {
  const of = (f: (s: PrecisionReport) => number) => scores.map(f);
  const precision = pairedDifference(
    of((s) => s.overall.judged.precision),
    of((s) => s.overall.rules.precision),
    'higher',
  );
  const recall = pairedDifference(
    of((s) => s.overall.judged.recall),
    of((s) => s.overall.rules.recall),
    'lower',
  );
  const lostRecall = recall.verdict === 'reproduces';
  const verdict: Verdict =
    lostRecall || precision.verdict === 'contradicts' ? 'contradicts' : precision.verdict === 'reproduces' ? 'reproduces' : 'inconclusive';
  return { verdict, precision, recall };
}
