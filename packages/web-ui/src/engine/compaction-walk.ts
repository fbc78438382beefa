// The compaction walkthrough's numbers (docs/experiments/split-invariance.md,
// docs/algorithms/ppo-gae.md §2.5): a long rollout cut after token k into two segments, as the episode runner's
// compaction does (envs/compaction.ts, envs/episode.ts), each segment its own row with the rollout's
// reward on its last action token, bootstrap 0 (terminal) and tokensAfter = the trained tokens of
// the later segment. One dispatch of the GAE kernel computes four rows: the uncut rollout, the
// first segment with its cross-segment factor (γλ)^tokensAfter, the same segment without it (so the
// page can show local × factor = corrected), and the second segment. Then the loss-aggregation
// kernel reduces fixed per-token losses under every reducer, the batch whole (long + short rollout,
// two rows) and cut (three rows, two sharing a rollout id). Without WebGPU the float64 references
// fill in.

import { aggregate, aggregateRef, type Gpu, gae, gaeRef } from '@horizon/kernels';
import { COMPACTION_REWARD, LONG_T, LONG_TOKENS, REDUCERS, SHORT_LOSSES } from './compaction-data.ts';
import type { CompactionAnswer, CompactionRequest } from './walk-api.ts';

export function checkCompactionRequest(r: CompactionRequest): void {
  if (!(Number.isInteger(r.cut) && r.cut >= 1 && r.cut < LONG_T))
    throw new RangeError(`compaction walkthrough: cut must be a whole number of tokens from 1 to ${LONG_T - 1}, got ${r.cut}`);
  for (const key of ['gamma', 'lambda'] as const)
    if (!(r[key] >= 0 && r[key] <= 1)) throw new RangeError(`compaction walkthrough: ${key} must be in [0, 1], got ${r[key]}`);
  if (typeof r.critic !== 'boolean') throw new RangeError(`compaction walkthrough: critic must be true or false, got ${String(r.critic)}`);
}

/** The GAE kernel's four rows of T = LONG_T: uncut, first segment (corrected), first segment (local), second segment. */
export function compactionGaeInputs(r: CompactionRequest) {
  const T = LONG_T;
  const rewards = new Float32Array(4 * T);
  const values = new Float32Array(4 * T);
  const actionMask = new Uint32Array(4 * T);
  const row = (b: number, from: number, to: number) => {
    for (let t = from; t < to; t++) {
      actionMask[b * T + t - from] = 1;
      values[b * T + t - from] = r.critic ? LONG_TOKENS[t].value : 0;
    }
    rewards[b * T + to - from - 1] = COMPACTION_REWARD;
  };
  row(0, 0, T);
  row(1, 0, r.cut);
  row(2, 0, r.cut);
  row(3, r.cut, T);
  return { rewards, values, actionMask, tokensAfter: [0, T - r.cut, 0, 0] };
}

/** The loss batch, whole (2 rows) and cut (3 rows), padded to T = LONG_T; rollout 0 is the long one. */
export function compactionLossInputs(cut: number) {
  const T = LONG_T;
  const pack = (rows: number[][]) => {
    const values = new Float32Array(rows.length * T);
    const mask = new Uint32Array(rows.length * T);
    for (const [b, losses] of rows.entries())
      for (const [t, x] of losses.entries()) {
        values[b * T + t] = x;
        mask[b * T + t] = 1;
      }
    return { values, mask, B: rows.length };
  };
  const long = LONG_TOKENS.map((t) => t.loss);
  return {
    whole: { ...pack([long, [...SHORT_LOSSES]]), rolloutIds: [0, 1] },
    cut: { ...pack([long.slice(0, cut), long.slice(cut), [...SHORT_LOSSES]]), rolloutIds: [0, 0, 1] },
  };
}

export async function computeCompactionWalk(gpu: Gpu | null, request: CompactionRequest, deviceLine: string): Promise<CompactionAnswer> {
  checkCompactionRequest(request);
  const started = performance.now();
  const T = LONG_T;
  const { tokensAfter, ...inputs } = compactionGaeInputs(request);
  const options = { B: 4, T, gamma: request.gamma, lambda: [request.lambda, request.lambda, request.lambda, request.lambda] };
  const { advantages } = gpu ? await gae(gpu, inputs, { ...options, tokensAfter }) : gaeRef({ ...inputs, tokensAfter }, options);
  const adv = Array.from(advantages);
  const rowOf = (b: number, n: number) => adv.slice(b * T, b * T + n);
  const batches = compactionLossInputs(request.cut);
  const losses = [];
  for (const mode of REDUCERS) {
    const reduce = async (batch: { values: Float32Array; mask: Uint32Array; B: number; rolloutIds: number[] }) => {
      const opts = { mode, rolloutIds: batch.rolloutIds, constant: T };
      return gpu
        ? aggregate(gpu, { values: batch.values, mask: batch.mask }, { B: batch.B, T, ...opts })
        : aggregateRef(batch.values, batch.mask, batch.B, T, opts);
    };
    losses.push({ mode, whole: await reduce(batches.whole), cut: await reduce(batches.cut) });
  }
  return {
    request: { ...request },
    values: Array.from(inputs.values.slice(0, T)),
    whole: rowOf(0, T),
    stitched: [...rowOf(1, request.cut), ...rowOf(3, T - request.cut)],
    local: [...rowOf(2, request.cut), ...rowOf(3, T - request.cut)],
    factor: (request.gamma * request.lambda) ** (T - request.cut),
    tokensAfter: T - request.cut,
    losses,
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}
