// The compaction lab's recipe and its reading of a live run (docs/ui.md §26,
// docs/experiments/split-invariance.md): the stream-ppo preset (long-stream with compaction, the
// policy writes its own summaries) shrunk to a tab, and one trajectory of an RL iteration put back
// together from its segments (the records of one rollout id at one step, by segment index). Every
// per-token advantage is the trainer's, as logged (the `advantage` channel); the per-token loss the
// lab aggregates is the policy-gradient term at the first update of the iteration, where the
// sampling and the current policy agree (ρ = 1): L_t = −A_t, PPO's clipped term and the plain one
// alike. Page-safe: no core or kernel code at run time.
//
// Shape legend: S segments of one trajectory · n trained tokens of the trajectory (action + summary)

import type { ReplaySample, TrainingRequest } from './api.ts';

export const COMPACTION_PRESET = 'stream-ppo';

export interface CompactionLabSettings {
  sftSteps: number;
  iterations: number;
  seed: number;
}

export const COMPACTION_LAB_DEFAULTS: CompactionLabSettings = { sftSteps: 40, iterations: 4, seed: 1 };
export const COMPACTION_LAB_LIMITS = { sftSteps: [1, 400], iterations: [1, 100], seed: [0, 1_000_000] } as const;

/**
 * stream-ppo shrunk to a tab: 4 demonstrations per SFT step and 4 streams per iteration (40 SFT steps
 * at T = 64 took 17 s with the CLI on SwiftShader, and already write `<summary>d</summary>` at each
 * cut), τ = 0.5, every rollout logged, evaluation only before and after RL.
 */
export function compactionLabRequest(s: CompactionLabSettings): TrainingRequest {
  return {
    recipe: COMPACTION_PRESET,
    seed: s.seed,
    sets: [
      `sft.steps=${s.sftSteps}`,
      'sft.batchSize=4',
      `rl.iterations=${s.iterations}`,
      'rl.promptsPerIteration=4',
      'rl.temperature=0.5',
      'eval.interval=0',
      'eval.heldOutSize=2',
      'eval.oodSize=1',
      'checkpoint.interval=0',
      'log.allSamples=true',
    ],
  };
}

/** One token of a segment as the lab draws it. */
export interface LabToken {
  text: string;
  /** The KIND_LETTERS letter: p prompt, a action, o observation, s summary, c carried context, … */
  kind: string;
  /** The trainer's advantage on a trained token (action or summary); null elsewhere. */
  advantage: number | null;
}

export interface LabSegment {
  segmentIndex: number;
  /** Trainable tokens after this segment (the cross-segment discount's exponent). */
  tokensAfter: number;
  tokens: LabToken[];
}

/** One trajectory: its segments in order, and its trained tokens end to end. */
export interface LabTrajectory {
  step: number;
  rolloutId: number;
  reward: number;
  segments: LabSegment[];
  /** [n] the trained tokens' advantages, segment after segment. */
  advantages: number[];
  /** [S − 1] where the run cut: the number of trained tokens before each later segment. */
  runCuts: number[];
}

const TRAINED = new Set(['a', 's']);

export function trajectories(samples: readonly ReplaySample[]): LabTrajectory[] {
  const by = new Map<string, ReplaySample[]>();
  for (const s of samples) {
    if (s.phase !== 'rl' || s.branch) continue;
    const key = `${s.step}:${s.rolloutId}`;
    by.set(key, [...(by.get(key) ?? []), s]);
  }
  const out: LabTrajectory[] = [];
  for (const group of by.values()) {
    group.sort((a, b) => (a.segmentIndex ?? 0) - (b.segmentIndex ?? 0));
    const advantages: number[] = [];
    const runCuts: number[] = [];
    const segments = group.map((s, k) => {
      if (k > 0) runCuts.push(advantages.length);
      const kinds = s.kinds ?? s.roles;
      const adv = s.channels.advantage;
      const tokens = s.tokens.map((_, t) => {
        const trained = TRAINED.has(kinds[t]);
        const a = trained && adv ? adv[t] : null;
        if (a !== null) advantages.push(a);
        return { text: s.pieces?.[t] ?? '', kind: kinds[t], advantage: a };
      });
      return { segmentIndex: s.segmentIndex ?? 0, tokensAfter: s.tokensAfter ?? 0, tokens };
    });
    out.push({ step: group[0].step, rolloutId: group[0].rolloutId, reward: group[group.length - 1].reward, segments, advantages, runCuts });
  }
  return out.sort((a, b) => a.step - b.step || a.rolloutId - b.rolloutId);
}

/** The trajectory the lab opens on: the newest iteration's with the most segments (ties: the lowest id). */
export function longestOfNewest(all: readonly LabTrajectory[]): LabTrajectory | null {
  if (all.length === 0) return null;
  const step = Math.max(...all.map((t) => t.step));
  return all.filter((t) => t.step === step).reduce((best, t) => (t.segments.length > best.segments.length ? t : best));
}

/** Every reducer the trainer offers (rl.lossAggregation), in the order the table lists them. */
export const LAB_REDUCERS = ['token-mean', 'per-rollout-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;

/**
 * The three batchings the lab reduces: the trajectory as one row, as the run cut it (one row per
 * segment), and cut once after trained token `cut` (two rows); each with the iteration's other
 * trajectories as one row each, so a reducer that counts rows shows it. Rows hold L_t = −A_t;
 * `rolloutIds` says which rows are one rollout (per-rollout-mean reads it).
 */
export function labBatches(chosen: LabTrajectory, others: readonly LabTrajectory[], cut: number) {
  const loss = (a: readonly number[]) => a.map((x) => -x);
  const own = loss(chosen.advantages);
  const rest = others.filter((t) => t.advantages.length > 0).map((t) => loss(t.advantages));
  const restIds = rest.map((_, i) => i + 1);
  const bounds = [0, ...chosen.runCuts, own.length];
  const runRows = bounds.slice(1).map((end, k) => own.slice(bounds[k], end));
  return [
    { name: 'uncut', rows: [own, ...rest], rolloutIds: [0, ...restIds] },
    { name: 'as the run cut it', rows: [...runRows, ...rest], rolloutIds: [...runRows.map(() => 0), ...restIds] },
    { name: `cut after token ${cut}`, rows: [own.slice(0, cut), own.slice(cut), ...rest], rolloutIds: [0, 0, ...restIds] },
  ];
}

/** A batching as the aggregation kernel takes it: [B, T] values and mask, T the longest row (at least 1). */
export function packLabBatch(rows: readonly (readonly number[])[]): { values: Float32Array; mask: Uint32Array; B: number; T: number } {
  const B = rows.length;
  const T = Math.max(1, ...rows.map((r) => r.length));
  const values = new Float32Array(B * T); // values: [B, T] f32
  const mask = new Uint32Array(B * T); // mask: [B, T] u32
  for (const [b, row] of rows.entries())
    for (const [t, x] of row.entries()) {
      values[b * T + t] = x;
      mask[b * T + t] = 1;
    }
  return { values, mask, B, T };
}
