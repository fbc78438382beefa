// One logged rollout (a samples.jsonl SampleRecord) as the fields every dataset export shares: the
// prompt and completion as text, the token ids and roles, the reward, and the per-token channels
// under the export's two rules:
//
//   null at positions the policy did not sample. samples.jsonl writes 0 at prompt and observation
//   positions of every channel (core/train/iteration-metrics.ts), and a 0 log-prob reads as
//   probability 1; here every position whose role is not "a" (action) is null.
//   non-finite numbers become null and are named. samples.jsonl writes NaN and ±Infinity as the
//   strings "NaN", "Infinity", "-Infinity" (core/metrics/jsonl.ts); a dataset loader would read a
//   string column. Here each one is null, and the row's `nonfinite` lists where they were
//   ("reward", "channels.logprob[7]"), so a null there is told apart from a prompt position's.
//
// Text: the prompt is the pieces before the first token the policy or the environment wrote (the
// leading run of role "p"), the completion every piece after it, special tokens written by name
// ("<eos>"), so the exported tokenizer (hf-tokenizer.ts) encodes prompt + completion back to exactly
// token_ids.

import type { SampleRecord } from '@horizon/core';

export type Channel = (number | null)[];

export interface Trajectory {
  prompt: string;
  completion: string;
  token_ids: number[];
  /** One letter per token: "p" prompt (or other context), "a" sampled by the policy, "o" the environment's observation. */
  token_roles: string;
  reward: number | null;
  phase: SampleRecord['phase'];
  step: number;
  rollout_id: number;
  group_id: number;
  segment_index: number;
  status: string | null;
  /** Per-token channels (advantage, logprob, kl, value), null off action positions; null when the run logged none for this rollout. */
  channels: Record<string, Channel> | null;
  /** Where a non-finite number was turned into null. */
  nonfinite: string[];
}

/** A logged number (a number or "NaN"/"Infinity"/"-Infinity", or null where JSON.stringify wrote a NaN) as finite-or-null. */
function finite(value: unknown, where: string, nonfinite: string[]): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  nonfinite.push(where);
  return null;
}

/** The record's pieces; a record written without them (older files) is refused in one sentence by the caller. */
function piecesOf(record: SampleRecord): string[] | undefined {
  return record.pieces && record.pieces.length === record.tokens.length ? record.pieces : undefined;
}

export function trajectoryOf(record: SampleRecord): Trajectory | undefined {
  const pieces = piecesOf(record);
  if (!pieces) return undefined;
  const roles = record.roles;
  let start = 0;
  while (start < roles.length && roles[start] === 'p') start++;
  const nonfinite: string[] = [];
  let channels: Record<string, Channel> | null = null;
  if (record.channels && Object.keys(record.channels).length > 0) {
    channels = {};
    for (const [name, values] of Object.entries(record.channels))
      channels[name] = values.map((v, p) => (roles[p] === 'a' ? finite(v, `channels.${name}[${p}]`, nonfinite) : null));
  }
  return {
    prompt: pieces.slice(0, start).join(''),
    completion: pieces.slice(start).join(''),
    token_ids: [...record.tokens],
    token_roles: roles,
    reward: finite(record.reward, 'reward', nonfinite),
    phase: record.phase,
    step: record.step,
    rollout_id: record.rolloutId,
    group_id: record.groupId,
    segment_index: record.segmentIndex ?? 0,
    status: record.status ?? null,
    channels,
    nonfinite,
  };
}
