// The monitor's `hack/*` metrics of a batch, read from the decision log each scored rollout carries
// (`meta.calls[k].monitor`, written by the environment's tool). The names and their meanings are in
// metrics/glossary.ts; the trainer logs them beside the tool-call counts.

import type { Sample } from '../envs/sample.ts';
import type { MetricName } from '../metrics/glossary.ts';
import type { MonitorDecision } from './monitor.ts';

function isDecision(value: unknown): value is MonitorDecision {
  if (typeof value !== 'object' || value === null) return false;
  const d = value as Partial<MonitorDecision>;
  return Array.isArray(d.flags) && typeof d.confirmed === 'boolean' && (d.action === 'allow' || d.action === 'fabricate');
}

/** The decisions recorded in a rollout's info, in call order (none when the monitor was off). */
export function recordedDecisions(meta: Sample['meta']): MonitorDecision[] {
  const calls = meta.calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call) => {
    const decision = typeof call === 'object' && call !== null && !Array.isArray(call) ? call.monitor : undefined;
    return isDecision(decision) ? [decision] : [];
  });
}

/**
 * hack/* over the scored rollouts (completed or truncated) that carry decisions: counts of flagged
 * and fabricated calls, the share of rollouts with a flagged call, and the three rates. Rates with
 * no denominator are left out rather than reported as 0.
 */
export function monitorMetrics(samples: readonly Pick<Sample, 'meta' | 'status'>[]): Partial<Record<MetricName, number>> {
  const scored = samples.filter((s) => s.status === 'completed' || s.status === 'truncated').map((s) => recordedDecisions(s.meta));
  const monitored = scored.filter((decisions) => decisions.length > 0);
  if (monitored.length === 0) return {};
  const all = monitored.flat();
  const flagged = all.filter((d) => d.flags.length > 0);
  const confirmed = all.filter((d) => d.confirmed);
  return {
    'hack/attempts': flagged.length,
    'hack/intercepted': all.filter((d) => d.action === 'fabricate').length,
    'hack/attempt_rate': monitored.filter((decisions) => decisions.some((d) => d.flags.length > 0)).length / monitored.length,
    'hack/flag_rate': flagged.length / all.length,
    'hack/confirmed_rate': confirmed.length / all.length,
    ...(flagged.length > 0 ? { 'hack/overturn_rate': (flagged.length - confirmed.length) / flagged.length } : {}),
  };
}
