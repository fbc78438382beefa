// The critic walkthrough's numbers (docs/algorithms/genac.md): four rollouts whose baseline comes
// from a generative critic's written output or from a discriminative critic's scalar values.
// GenAC: each typed output goes through core's parseCritique (value-digit.ts); a malformed one takes
// the fallback core's critic sampling uses — the mean of the batch's well-formed values, or 0.5 when
// none is (critic-sampling.ts, whose rule is restated here because core computes it inside its
// sampler) — and digit/10 is the baseline of every action token: A_t = G_t − v (policy-advantages.ts).
// The discriminative critic: a value head's V_t per token, through GAE with the learner's λ. Both go
// through one dispatch of the GAE kernel: a constant baseline with λ = 1 and γ = 1 is exactly G_t − v,
// so GenAC's rows are GAE rows with V_t = v. Without WebGPU the float64 reference fills in.

import { parseCritique } from '@horizon/core';
import { type Gpu, gae, gaeRef } from '@horizon/kernels';
import { type CritiqueInput, GENAC_ACTIONS, GENAC_ROLLOUTS, GENAC_T } from './genac-data.ts';
import type { GenacAnswer, GenacRequest } from './walk-api.ts';

/** critic-sampling.ts's NO_CRITIQUE_VALUE: a fresh critic's baseline, the middle of [0, 1]. */
export const NO_CRITIQUE_VALUE = 0.5;
export const GENAC_MAX_TEXT = 40;

export function checkGenacRequest(r: GenacRequest): void {
  if (!Array.isArray(r.critiques) || r.critiques.length !== GENAC_ROLLOUTS.length)
    throw new RangeError(`genac walkthrough: one critic output per rollout (${GENAC_ROLLOUTS.length}), got ${r.critiques?.length}`);
  for (const [b, c] of r.critiques.entries()) {
    if (typeof c.text !== 'string' || c.text.length > GENAC_MAX_TEXT)
      throw new RangeError(`genac walkthrough: critic output ${b + 1} must be text of at most ${GENAC_MAX_TEXT} characters`);
    if (typeof c.eos !== 'boolean') throw new RangeError(`genac walkthrough: whether critic output ${b + 1} ended with <eos> must be true or false`);
  }
  if (!(r.lambda >= 0 && r.lambda <= 1)) throw new RangeError(`genac walkthrough: lambda must be in [0, 1], got ${r.lambda}`);
}

/** The baselines: each critique parsed, and the value it becomes (digit/10, or the fallback). */
export function genacBaselines(critiques: readonly CritiqueInput[]) {
  const parsed = critiques.map((c) => parseCritique(c.text, c.eos));
  const wellFormed = parsed.flatMap((c) => (c.ok ? [c.value] : []));
  const fallback = wellFormed.length > 0 ? wellFormed.reduce((a, b) => a + b, 0) / wellFormed.length : NO_CRITIQUE_VALUE;
  return { parsed, fallback, values: parsed.map((c) => (c.ok ? c.value : fallback)) };
}

/** The GAE kernel's 2·B rows: GenAC's (V_t = the rollout's baseline, λ = 1), then the value head's (its V_t, λ). */
export function genacGaeInputs(baselines: readonly number[], lambda: number) {
  const B = GENAC_ROLLOUTS.length;
  const T = GENAC_T;
  const rewards = new Float32Array(2 * B * T);
  const values = new Float32Array(2 * B * T);
  const actionMask = new Uint32Array(2 * B * T);
  for (const [b, r] of GENAC_ROLLOUTS.entries())
    for (let t = 0; t < GENAC_ACTIONS; t++)
      for (const [row, v] of [
        [b, baselines[b]],
        [B + b, r.values[t]],
      ] as const) {
        actionMask[row * T + t] = 1;
        values[row * T + t] = v;
        if (t === GENAC_ACTIONS - 1) rewards[row * T + t] = r.reward;
      }
  return { rewards, values, actionMask, lambda: [...Array(B).fill(1), ...Array(B).fill(lambda)] as number[] };
}

export async function computeGenacWalk(gpu: Gpu | null, request: GenacRequest, deviceLine: string): Promise<GenacAnswer> {
  checkGenacRequest(request);
  const started = performance.now();
  const B = GENAC_ROLLOUTS.length;
  const T = GENAC_T;
  const { parsed, fallback, values } = genacBaselines(request.critiques);
  const { lambda, ...inputs } = genacGaeInputs(values, request.lambda);
  const options = { B: 2 * B, T, gamma: 1, lambda };
  const { advantages } = gpu ? await gae(gpu, inputs, options) : gaeRef(inputs, options);
  const rows = (from: number) => Array.from({ length: B }, (_, b) => Array.from(advantages.slice((from + b) * T, (from + b) * T + GENAC_ACTIONS)));
  return {
    request: { ...request, critiques: request.critiques.map((c) => ({ ...c })) },
    critiques: parsed.map((c) =>
      c.ok ? { ok: true, reasoning: c.reasoning, digit: c.digit, value: c.value } : { ok: false, reasoning: c.reasoning, reason: c.reason },
    ),
    fallback,
    baselines: values,
    genac: rows(0),
    discriminative: rows(B),
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}
