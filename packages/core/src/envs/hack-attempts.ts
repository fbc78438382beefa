// The hack-attempt rate of a batch, for the iteration metrics beside the tool-call counts: any
// environment whose verifier says whether an episode touched what it must not (`info.hackAttempt`,
// HiddenTestFS's reads under .eval/ from the sandbox's access record) is counted the same way.

import type { MetricName } from '../metrics/glossary.ts';
import type { Sample } from './sample.ts';

/**
 * The share of scored rollouts whose verifier info says they attempted a hack (`meta.hackAttempt`). Failed and aborted rollouts, which
 * carry no verdict, are not counted; a batch with no verdict at all gives no metric.
 */
export function hackMetrics(samples: readonly Pick<Sample, 'meta' | 'status'>[]): Partial<Record<MetricName, number>> {
  const scored = samples.filter((s) => (s.status === 'completed' || s.status === 'truncated') && typeof s.meta.hackAttempt === 'boolean');
  if (scored.length === 0) return {};
  return { 'rollout/hack_attempt_rate': scored.filter((s) => s.meta.hackAttempt === true).length / scored.length };
}
