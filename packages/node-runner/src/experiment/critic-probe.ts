// How good a run's critic is, measured the same way for a discriminative critic (PPO's value head)
// and a generative one (GenAC's written digit), on the batch the next iteration trains on (same
// seeds, nothing updated). Both critics give a value for the state "the prompt, nothing answered
// yet": PPO's V at the row's first action position (the logits predicting the first answer token,
// train/rows.ts), GenAC's digit/10 of the rollout's own critique (meta.genac.value, the fallback
// included when the critique is malformed: the value its baseline took). The target is the
// prompt's Monte-Carlo value, the mean task reward of its group of rollouts in that batch — what
// both critics are trained towards (genac/critic-targets.ts; PPO's λ_critic = 1 return has it as
// its group mean). GenAC's paper compares critics the same two ways (value error against
// Monte-Carlo returns, and whether the critic orders prompts by their success):
//
//   value error        mean_b |v_b − MC_g(b)|                      (one value per rollout, as used)
//   ranking accuracy   over pairs of prompts g, h with MC_g ≠ MC_h: the fraction where the mean
//                      values v̄_g, v̄_h order them as MC does (a tie in v̄ counts one half)
//
// The Monte-Carlo value is itself an estimate from the group's G rollouts, so both figures carry
// its noise; it is the same noise for every arm of a seed on the same prompts.
//
// Shape legend:  B rows · T positions

import type { CriticProbe, RunResult } from './results.ts';

export interface CriticProbeBatch {
  /** [B] the prompt group of each row. */
  groupIds: ArrayLike<number>;
  /** [B] the critic's value of each row's prompt. */
  values: ArrayLike<number>;
  /** [B] each row's task reward. */
  rewards: ArrayLike<number>;
}

export function probeCritic(batch: CriticProbeBatch, iteration: number): CriticProbe {
  const { groupIds, values, rewards } = batch;
  const B = groupIds.length;
  const groups = new Map<number, { reward: number; value: number; n: number }>();
  for (let b = 0; b < B; b++) {
    const g = groups.get(groupIds[b]) ?? { reward: 0, value: 0, n: 0 };
    g.reward += rewards[b];
    g.value += values[b];
    g.n += 1;
    groups.set(groupIds[b], g);
  }
  let error = 0;
  for (let b = 0; b < B; b++) {
    const g = groups.get(groupIds[b]) as { reward: number; n: number };
    error += Math.abs(values[b] - g.reward / g.n);
  }
  const prompts = [...groups.values()].map((g) => ({ mc: g.reward / g.n, value: g.value / g.n }));
  let concordant = 0;
  let pairs = 0;
  for (let i = 0; i < prompts.length; i++)
    for (let j = i + 1; j < prompts.length; j++) {
      const dm = prompts[i].mc - prompts[j].mc;
      if (dm === 0) continue;
      const dv = prompts[i].value - prompts[j].value;
      pairs++;
      concordant += dv === 0 ? 0.5 : Math.sign(dv) === Math.sign(dm) ? 1 : 0;
    }
  return {
    iteration,
    valueError: B > 0 ? error / B : Number.NaN,
    rankingAccuracy: pairs > 0 ? concordant / pairs : Number.NaN,
    prompts: prompts.length,
  };
}

/** What the probe reads from a scored batch (core's ScoredRollouts). */
export interface ScoredForProbe {
  samples: readonly { reward: number; meta: Readonly<Record<string, unknown>> }[];
  trained: readonly number[];
  rows: { B: number; T: number; groupIds: ArrayLike<number>; actionMask: ArrayLike<number> };
  scores: { values?: ArrayLike<number> };
}

/** The probe's batch from a scored batch, or undefined when its method has no critic. */
export function criticProbeBatch(scored: ScoredForProbe): CriticProbeBatch | undefined {
  const { rows, samples, trained } = scored;
  const { B, T } = rows;
  if (B === 0) return undefined;
  const rowSamples = trained.map((i) => samples[i]);
  const rewards = Float64Array.from(rowSamples, (s) => s.reward);
  const values = new Float64Array(B);
  const written = rowSamples.map((s) => (s.meta.genac as { value?: unknown } | undefined)?.value);
  const critic = scored.scores.values;
  if (written.every((v) => typeof v === 'number')) values.set(written as number[]);
  else if (critic) {
    for (let b = 0; b < B; b++) {
      let t = 0;
      while (t < T && !rows.actionMask[b * T + t]) t++;
      // A row with no action token has no answer to value; it cannot arise from a rollout that trains.
      if (t === T) throw new RangeError(`row ${b} of the probed batch has no action token`);
      values[b] = critic[b * T + t];
    }
  } else return undefined;
  return { groupIds: rows.groupIds, values, rewards };
}

/** A run's critic over its training: the mean of its probes after iteration 0 (the critic as trained), or undefined without any. */
export function criticMeans(run: RunResult): { valueError: number; rankingAccuracy: number } | undefined {
  const trained = (run.critic ?? []).filter((p) => p.iteration > 0);
  if (trained.length === 0) return undefined;
  const mean = (f: (p: CriticProbe) => number) => {
    const finite = trained.map(f).filter(Number.isFinite);
    return finite.length ? finite.reduce((a, x) => a + x, 0) / finite.length : Number.NaN;
  };
  return { valueError: mean((p) => p.valueError), rankingAccuracy: mean((p) => p.rankingAccuracy) };
}
