// The divergence stop, one rule for every front end (docs/reliability.md §6): a NaN or infinite loss, gradient
// norm or reward (the glossary's `divergence` metrics) stops the run at the step that produced it,
// after that step's row is logged (the NaN is the evidence) and before any checkpoint: a checkpoint
// never holds non-finite weights, so the last one written is the last good one.

import { METRICS, type MetricName } from '../metrics/glossary.ts';
import type { Phase } from '../metrics/jsonl.ts';

/** The run diverged; the message names the metric, its value and the step. Front ends exit 1 (the CLI) or show a "diverged" badge (the UI). */
export class DivergedError extends Error {
  constructor(
    message: string,
    /** The metric that went non-finite, or the model whose weights did. */
    readonly what: string,
    readonly phase: Phase,
    readonly step: number,
  ) {
    super(message);
    this.name = 'DivergedError';
  }
}

export function isDivergedError(error: unknown): error is DivergedError {
  return error instanceof DivergedError || (error instanceof Error && error.name === 'DivergedError');
}

const where = (phase: Phase, step: number) =>
  phase === 'sft' ? `SFT step ${step}` : phase === 'rl' ? `RL iteration ${step}` : `the evaluation after ${step === 0 ? 'SFT' : `iteration ${step}`}`;

/** The first divergence metric in `metrics` that is not finite, as a DivergedError, or undefined. */
export function divergence(phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>): DivergedError | undefined {
  for (const [name, value] of Object.entries(metrics) as [MetricName, number][]) {
    if (Number.isFinite(value) || !('divergence' in METRICS[name])) continue;
    return new DivergedError(`training diverged: ${name} = ${value} at ${where(phase, step)}`, name, phase, step);
  }
  return undefined;
}

/** Refuses to checkpoint weights that went non-finite (a step whose metrics were still finite can leave them so). */
export function checkFiniteWeights(model: string, params: Float32Array, phase: Phase, step: number): void {
  for (let i = 0; i < params.length; i++) {
    if (!Number.isFinite(params[i]))
      throw new DivergedError(`training diverged: the ${model} weights hold ${params[i]} after ${where(phase, step)}`, `${model} weights`, phase, step);
  }
}
