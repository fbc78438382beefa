// The verdict of one paired comparison. Every seed gives one difference d_s = arm − against on
// the final held-out success (both arms of a seed share its warm start and rollout seeds); the
// claim "reproduces" when the mean difference is more than 2 standard errors from zero in the
// direction it predicts, "contradicts" when it is that far the other way, and is "inconclusive"
// otherwise. Two standard errors is roughly a 95% interval under a normal approximation; with 3
// seeds a t interval would be wider (t₂ = 4.3), so this rule says "reproduces" more readily than a
// t-test would — the report prints the standard error so a reader can apply a stricter bar.

export type Verdict = 'reproduces' | 'contradicts' | 'inconclusive';

export interface PairedDifference {
  /** Per-seed differences, in seed order. */
  differences: number[];
  mean: number;
  /** Standard error of the mean: sample standard deviation (n − 1) over √n; NaN below 2 seeds. */
  standardError: number;
  verdict: Verdict;
}

export function pairedDifference(arm: readonly number[], against: readonly number[], direction: 'higher' | 'lower'): PairedDifference {
  if (arm.length !== against.length) throw new RangeError(`paired arms need one value per seed each (got ${arm.length} and ${against.length})`);
  const differences = arm.map((x, i) => x - against[i]);
  const n = differences.length;
  const mean = n > 0 ? differences.reduce((a, b) => a + b, 0) / n : Number.NaN;
  const variance = n > 1 ? differences.reduce((a, d) => a + (d - mean) ** 2, 0) / (n - 1) : Number.NaN;
  const standardError = Math.sqrt(variance / n);
  return { differences, mean, standardError, verdict: verdictOf(mean, standardError, direction) };
}

function verdictOf(mean: number, standardError: number, direction: 'higher' | 'lower'): Verdict {
  // Fewer than 2 seeds has no spread to measure; identical arms (mean 0, SE 0) show no effect.
  if (!Number.isFinite(mean) || !Number.isFinite(standardError) || mean === 0) return 'inconclusive';
  if (Math.abs(mean) <= 2 * standardError) return 'inconclusive';
  const predicted = direction === 'higher' ? mean > 0 : mean < 0;
  return predicted ? 'reproduces' : 'contradicts';
}

/** Mean and sample standard deviation of one arm's per-seed values. */
export function spread(values: readonly number[]): { mean: number; std: number } {
  const n = values.length;
  const mean = n > 0 ? values.reduce((a, b) => a + b, 0) / n : Number.NaN;
  const std = n > 1 ? Math.sqrt(values.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : Number.NaN;
  return { mean, std };
}
