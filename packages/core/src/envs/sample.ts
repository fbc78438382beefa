// The rollout record every algorithm consumes (docs/algorithms/README.md §6, modelled on slime's Sample) and
// its packing into the [B, T] arrays the GPU kernels take.
//
// Shape legend: B samples · T padded tokens · L one sample's length (prompt + response)
//
// Positions are token positions: actionMask[t] = 1 means tokens[t] was sampled by the policy, and a
// step's reward sits on the position of the last token of that step's action — the end-of-sequence
// token when the policy ended the episode, never an observation token (docs/algorithms/README.md §1). The model predicts
// tokens[t] from position t − 1; the trainer shifts, this record does not.

import type { ActionEnding, JsonValue } from './environment.ts';

export interface StepReward {
  /** Token position of the last token of the action this reward answers. */
  position: number;
  value: number;
}

export interface Turn {
  /** The action text the environment saw (end-of-sequence excluded). */
  action: string;
  ending: ActionEnding;
  /** The observation that followed, if any. */
  observation?: string;
}

export interface Sample {
  /** [L] prompt + response ids, exactly as sampled (never re-tokenized). */
  tokens: number[];
  /** Index of the first response token (= prompt length). */
  responseStart: number;
  /** [L] 1 where the policy sampled the token (trainable), else 0. */
  actionMask: Uint8Array;
  /** [L] 1 where the environment wrote the token after the prompt (tool output, user turn), else 0. */
  observationMask: Uint8Array;
  /** [L] log π_roll of each sampled token at sampling time; 0 off action positions. */
  rolloutLogprobs: Float32Array;
  /** Every step's reward at its token position; `reward` is their sum. */
  stepRewards: StepReward[];
  reward: number;
  /** The environment ended the episode (true terminal: no bootstrap value). */
  done: boolean;
  /** The episode stopped without `done` (context full or turn limit): GAE bootstraps here. */
  truncated: boolean;
  /** Episode seed: reset(seed) reproduces the prompt. */
  seed: number;
  /** Shared by all segments of one trajectory (compaction splits one rollout into segments). */
  rolloutId: number;
  /** Prompt group for GRPO/RLOO baselines. */
  groupId: number;
  /** Segment index within the rollout and the trainable tokens after it (CompactionRL discount, docs/algorithms/ppo-gae.md §2.5). */
  segmentIndex: number;
  tokensAfter: number;
  prompt: string;
  turns: Turn[];
  /** Diagnostics of the last step (environment `info`) and anything the trainer adds. */
  meta: Record<string, JsonValue>;
}

/** Builds a Sample turn by turn; the episode runner drives it. */
export class SampleBuilder {
  private readonly tokens: number[] = [];
  private readonly action: number[] = [];
  private readonly observation: number[] = [];
  private readonly logprobs: number[] = [];
  private readonly rewards: StepReward[] = [];
  private readonly turns: Turn[] = [];
  private responseStart = -1;
  private lastActionEnd = -1;

  constructor(
    private readonly ids: { seed: number; rolloutId: number; groupId: number },
    private readonly promptText: string,
    promptIds: readonly number[],
  ) {
    if (promptIds.length === 0) throw new RangeError('a prompt must have at least one token');
    this.push(promptIds, 0, 0);
    this.responseStart = this.tokens.length;
  }

  get length(): number {
    return this.tokens.length;
  }

  /** The context so far, for the sampler. */
  context(): readonly number[] {
    return this.tokens;
  }

  addAction(ids: readonly number[], logprobs: readonly number[], text: string, ending: ActionEnding): void {
    if (ids.length !== logprobs.length) throw new RangeError(`action ids (${ids.length}) and logprobs (${logprobs.length}) must have the same length`);
    for (const lp of logprobs) if (!Number.isFinite(lp) || lp > 0) throw new RangeError(`action logprobs must be finite and ≤ 0, got ${lp}`);
    this.push(ids, 1, 0, logprobs);
    if (ids.length > 0) this.lastActionEnd = this.tokens.length - 1;
    this.turns.push({ action: text, ending });
  }

  addObservation(ids: readonly number[], text: string): void {
    const turn = this.turns.at(-1);
    if (!turn) throw new Error('an observation must follow an action');
    turn.observation = text;
    this.push(ids, 0, 1);
  }

  /** Places a step's reward on the last action token so far; with no action token yet it is an error. */
  addReward(value: number): void {
    if (!Number.isFinite(value)) throw new RangeError(`rewards must be finite, got ${value}`);
    if (this.lastActionEnd < 0) {
      if (value === 0) return;
      throw new RangeError('a non-zero reward arrived before the policy produced any token; there is no action token to place it on');
    }
    this.rewards.push({ position: this.lastActionEnd, value });
  }

  finish(end: { done: boolean; meta?: Record<string, JsonValue> }): Sample {
    return {
      tokens: [...this.tokens],
      responseStart: this.responseStart,
      actionMask: Uint8Array.from(this.action),
      observationMask: Uint8Array.from(this.observation),
      rolloutLogprobs: Float32Array.from(this.logprobs),
      stepRewards: [...this.rewards],
      reward: this.rewards.reduce((s, r) => s + r.value, 0),
      done: end.done,
      truncated: !end.done,
      seed: this.ids.seed,
      rolloutId: this.ids.rolloutId,
      groupId: this.ids.groupId,
      segmentIndex: 0,
      tokensAfter: 0,
      prompt: this.promptText,
      turns: this.turns.map((t) => ({ ...t })),
      meta: end.meta ?? {},
    };
  }

  private push(ids: readonly number[], action: 0 | 1, observation: 0 | 1, logprobs?: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0) throw new RangeError(`token ids must be non-negative integers, got ${id}`);
      this.tokens.push(id);
      this.action.push(action);
      this.observation.push(observation);
      this.logprobs.push(logprobs ? logprobs[i] : 0);
    }
  }
}

/** [L] per-token rewards: each step's reward at its position (docs/algorithms/README.md §1), zeros elsewhere. */
export function tokenRewards(sample: Sample): Float32Array {
  const r = new Float32Array(sample.tokens.length);
  for (const { position, value } of sample.stepRewards) r[position] += value;
  return r;
}

/** Number of trainable (action) tokens. */
export function actionTokenCount(sample: Sample): number {
  let n = 0;
  for (const m of sample.actionMask) n += m;
  return n;
}

export interface PackedBatch {
  B: number;
  T: number;
  tokens: Uint32Array; // tokens: [B, T] u32, padded with padId
  actionMask: Float32Array; // actionMask: [B, T] f32 0/1
  observationMask: Float32Array; // observationMask: [B, T] f32 0/1
  rewards: Float32Array; // rewards: [B, T] f32, step rewards at their positions
  rolloutLogprobs: Float32Array; // rolloutLogprobs: [B, T] f32, 0 off actions
  lengths: Uint32Array; // lengths: [B] real tokens per row
  responseStart: Uint32Array; // responseStart: [B]
  terminal: Uint32Array; // terminal: [B] 1 = done (no bootstrap), 0 = truncated
  rolloutIds: Uint32Array; // rolloutIds: [B]
  groupIds: Uint32Array; // groupIds: [B]
  segmentIndex: Uint32Array; // segmentIndex: [B]
  tokensAfter: Uint32Array; // tokensAfter: [B]
}

/** Packs samples into [B, T] rows (left-aligned, padded with `padId`, masks 0 on padding). */
export function packSamples(samples: readonly Sample[], T: number, padId: number): PackedBatch {
  if (!Number.isInteger(T) || T < 1) throw new RangeError(`T must be a positive integer, got ${T}`);
  if (!Number.isInteger(padId) || padId < 0) throw new RangeError(`padId must be a non-negative integer, got ${padId}`);
  const B = samples.length;
  const batch: PackedBatch = {
    B,
    T,
    tokens: new Uint32Array(B * T).fill(padId),
    actionMask: new Float32Array(B * T),
    observationMask: new Float32Array(B * T),
    rewards: new Float32Array(B * T),
    rolloutLogprobs: new Float32Array(B * T),
    lengths: new Uint32Array(B),
    responseStart: new Uint32Array(B),
    terminal: new Uint32Array(B),
    rolloutIds: new Uint32Array(B),
    groupIds: new Uint32Array(B),
    segmentIndex: new Uint32Array(B),
    tokensAfter: new Uint32Array(B),
  };
  samples.forEach((s, b) => {
    const L = s.tokens.length;
    if (L > T) throw new RangeError(`sample ${b} has ${L} tokens, more than T = ${T}`);
    const row = b * T;
    batch.tokens.set(s.tokens, row);
    batch.actionMask.set(s.actionMask, row);
    batch.observationMask.set(s.observationMask, row);
    batch.rewards.set(tokenRewards(s), row);
    batch.rolloutLogprobs.set(s.rolloutLogprobs, row);
    batch.lengths[b] = L;
    batch.responseStart[b] = s.responseStart;
    batch.terminal[b] = s.done ? 1 : 0;
    batch.rolloutIds[b] = s.rolloutId;
    batch.groupIds[b] = s.groupId;
    batch.segmentIndex[b] = s.segmentIndex;
    batch.tokensAfter[b] = s.tokensAfter;
  });
  return batch;
}
