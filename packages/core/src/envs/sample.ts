// The rollout record every algorithm consumes (docs/algorithms/README.md §6, modelled on slime's Sample) and
// its packing into the [B, T] arrays the GPU kernels take.
//
// Shape legend: B samples · T padded tokens · L one sample's length (prompt + response)
//
// One context is one sample, and its action tokens train exactly once. Every token carries a kind
// (TOKEN_KINDS: who wrote it into this context); the 0/1 action mask the losses read is derived from
// the kinds, never set on its own. What a compacted or branched trajectory carries over into a next
// context — the task prompt, a summary, the recent steps, a shared prefix — is kind `context` there:
// it trained (if it was an action) in the sample that sampled it, and has mask 0 in every later one.
// Kinds follow slime's loss_mask with the reason kept (THUDM/slime, `Sample.loss_mask`); the summary
// kind is CompactionRL's jointly trained summary turn (arXiv:2607.05378). Left out: span polarities
// (span-KTO) and partial trust in a re-tokenized prefix (its tokens are context, mask 0).
//
// Positions are token positions: actionMask[t] = 1 means tokens[t] was sampled by the policy, and a
// step's reward sits on the position of the last token of that step's action — the end-of-sequence
// token when the policy ended the episode, never an observation token (docs/algorithms/README.md §1). The model predicts
// tokens[t] from position t − 1; the trainer shifts, this record does not.

import type { ParentLink } from './branches.ts';
import type { ActionEnding, JsonValue, ToolCallOutcome } from './environment.ts';
import { type RolloutStatus, STATUS_RULES } from './rollout-status.ts';

/**
 * Who wrote a token into this context, in code order (Sample.tokenKinds holds the index):
 * - `prompt`: the task's opening prompt;
 * - `action`: sampled by the policy in this context (trainable);
 * - `observation`: written by the environment (a tool result);
 * - `user`: a user turn the environment wrote;
 * - `fabricated`: output the environment made up in place of a real one (a monitor's fake tool result);
 * - `summary`: a compaction summary the policy sampled in this context (trainable, CompactionRL);
 * - `context`: carried over from an earlier context of the same trajectory (never trained again), or
 *   a summary the policy sampled here that the recipe leaves untrained (rl.compaction.trainSummaries off).
 */
export const TOKEN_KINDS = ['prompt', 'action', 'observation', 'user', 'fabricated', 'summary', 'context'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
/** The code of each kind in Sample.tokenKinds. */
export const KIND_CODE = Object.fromEntries(TOKEN_KINDS.map((k, i) => [k, i])) as Record<TokenKind, number>;
/** Kinds the policy sampled in this context: the only ones a policy loss trains on. */
export const TRAINABLE_KINDS: readonly TokenKind[] = ['action', 'summary'];
const TRAINABLE_CODES: ReadonlySet<number> = new Set(TRAINABLE_KINDS.map((k) => KIND_CODE[k]));
/** Kinds the environment wrote after the prompt (the observation mask). */
export const ENVIRONMENT_KINDS: readonly TokenKind[] = ['observation', 'user', 'fabricated'];
export type ActionKind = 'action' | 'summary';
export type ObservationKind = 'observation' | 'user' | 'fabricated';

/** [L] 1 where tokenKinds[t] is one of `kinds`, else 0. */
export function maskOfKinds(tokenKinds: ArrayLike<number>, kinds: readonly TokenKind[]): Uint8Array {
  const codes = new Set(kinds.map((k) => KIND_CODE[k]));
  return Uint8Array.from(tokenKinds, (code) => (codes.has(code) ? 1 : 0));
}

/**
 * Why a rollout could not finish: the environment threw (reset, step or close), the verifier threw,
 * or the sampler gave up on the row. A sampler failure is an `aborted` rollout, the others `failed`.
 */
export interface RolloutFailure {
  source: 'environment' | 'verifier' | 'sampler';
  message: string;
}

/** The status a failure gives its rollout: the sampler giving up is not the episode's fault. */
export function failureStatus(failure: RolloutFailure): 'aborted' | 'failed' {
  return failure.source === 'sampler' ? 'aborted' : 'failed';
}

/** Per rollout: tool calls by outcome (environment.ts ToolCallOutcome), and outputs cut to the limit. */
export type ToolCallCounts = Record<ToolCallOutcome | 'outputTruncated', number>;

export function emptyToolCallCounts(): ToolCallCounts {
  return { ok: 0, syntax: 0, unknown_tool: 0, schema: 0, missing_stop: 0, tool_error: 0, timeout: 0, outputTruncated: 0 };
}

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
  /** [L] each token's kind, a KIND_CODE (TOKEN_KINDS): who wrote it into this context. */
  tokenKinds: Uint8Array;
  /** [L] derived from tokenKinds: 1 where the policy sampled the token in this context (TRAINABLE_KINDS), else 0. */
  actionMask: Uint8Array;
  /** [L] derived from tokenKinds: 1 where the environment wrote the token after the prompt (ENVIRONMENT_KINDS), else 0. */
  observationMask: Uint8Array;
  /** [L] log π_roll of each sampled token at sampling time; 0 off action positions. */
  rolloutLogprobs: Float32Array;
  /** Every step's reward at its token position; `reward` is their sum. */
  stepRewards: StepReward[];
  reward: number;
  /** How the rollout ended; whether and how it trains is STATUS_RULES (rollout-status.ts). */
  status: RolloutStatus;
  /** status = completed: the environment ended the episode (true terminal: no bootstrap value). */
  done: boolean;
  /** Not completed (context full, turn limit, or no end at all): GAE bootstraps here if it trains. */
  truncated: boolean;
  /**
   * A non-final segment of a compacted rollout: neither done nor truncated. It trains with bootstrap 0
   * (terminal in the packed batch) and the cross-segment discount (γλ)^tokensAfter instead
   * (docs/algorithms/ppo-gae.md §2.5); its status is the whole rollout's. Absent on every other sample.
   */
  compacted?: true;
  /** Episode seed: reset(seed) reproduces the prompt. */
  seed: number;
  /** Shared by all segments of one trajectory (compaction splits one rollout into segments). */
  rolloutId: number;
  /** Prompt group for GRPO/RLOO baselines. */
  groupId: number;
  /** Segment index within the rollout and the trainable tokens after it (CompactionRL discount, docs/algorithms/ppo-gae.md §2.5). */
  segmentIndex: number;
  tokensAfter: number;
  /**
   * A sub-agent's context (delegate.ts, branches.ts): its branch ('0.1' is the root's first
   * sub-agent) and where it was started. Absent on a root context (branch '0'). A sub-agent's sample
   * is neither done nor truncated: like a non-final segment it trains with bootstrap 0 and the
   * discount (γλ)^tokensAfter, its status the root's.
   */
  branch?: string;
  parent?: ParentLink;
  prompt: string;
  turns: Turn[];
  /** Diagnostics of the last step (environment `info`) and anything the trainer adds. */
  meta: Record<string, JsonValue>;
  /** Set when the rollout was aborted or failed (a sampler abort, an environment or verifier error): it leaves its group and never trains. */
  failure?: RolloutFailure;
  /** Present when the policy wrote at least one tool call: how its calls went. */
  toolCalls?: ToolCallCounts;
}

/** Options of a context that continues a trajectory (a compaction segment, a branch). */
export interface ContextOptions {
  /** Ids carried over from an earlier context, placed after the prompt as kind `context` (mask 0). */
  carried?: readonly number[];
  /** Segment index within the rollout (0 for a trajectory's first context). */
  segmentIndex?: number;
  /** A sub-agent's context: its branch and where its parent started it (branches.ts). */
  branch?: string;
  parent?: ParentLink;
}

/** Builds a Sample turn by turn; the episode runner drives it. */
export class SampleBuilder {
  private readonly tokens: number[] = [];
  private readonly kinds: number[] = [];
  private readonly logprobs: number[] = [];
  private readonly rewards: StepReward[] = [];
  private readonly turns: Turn[] = [];
  private responseStart = -1;
  private lastActionEnd = -1;

  constructor(
    private readonly ids: { seed: number; rolloutId: number; groupId: number },
    /** The prompt as text (what Sample.prompt records). */
    readonly promptText: string,
    promptIds: readonly number[],
    private readonly options: ContextOptions = {},
  ) {
    if (promptIds.length === 0) throw new RangeError('a prompt must have at least one token');
    if ((options.parent === undefined) !== (options.branch === undefined)) throw new RangeError('a sub-agent context needs both its branch and its parent');
    this.push(promptIds, 'prompt');
    this.push(options.carried ?? [], 'context');
    this.responseStart = this.tokens.length;
  }

  get length(): number {
    return this.tokens.length;
  }

  /** Whether the policy has written a trainable token here: where a reward can go. */
  get hasTrainableToken(): boolean {
    return this.lastActionEnd >= 0;
  }

  /** Trainable tokens so far (where a sub-agent starts, what its tokensAfter counts from). */
  get trainableCount(): number {
    let n = 0;
    for (const k of this.kinds) if (TRAINABLE_CODES.has(k)) n++;
    return n;
  }

  /** The turns so far, copied (what a verifier reads before the sample is finished). */
  turnsSoFar(): Turn[] {
    return this.turns.map((t) => ({ ...t }));
  }

  /** The context so far, for the sampler. */
  context(): readonly number[] {
    return this.tokens;
  }

  /** Tokens the policy sampled here: an action, or a compaction summary (`kind` 'summary'); both train. */
  addAction(ids: readonly number[], logprobs: readonly number[], text: string, ending: ActionEnding, kind: ActionKind = 'action'): void {
    if (ids.length !== logprobs.length) throw new RangeError(`action ids (${ids.length}) and logprobs (${logprobs.length}) must have the same length`);
    for (const lp of logprobs) if (!Number.isFinite(lp) || lp > 0) throw new RangeError(`action logprobs must be finite and ≤ 0, got ${lp}`);
    this.push(ids, kind, logprobs);
    if (ids.length > 0) this.lastActionEnd = this.tokens.length - 1;
    this.turns.push({ action: text, ending });
  }

  /** Tokens the policy sampled that do not train here (an untrained summary): kind `context`, no log-probs, no reward position. */
  addUntrained(ids: readonly number[], text: string, ending: ActionEnding): void {
    this.push(ids, 'context');
    this.turns.push({ action: text, ending });
  }

  /** Tokens the environment wrote after an action: a tool result, a user turn, or a fabricated result (a second one after the same action is appended to its text). */
  addObservation(ids: readonly number[], text: string, kind: ObservationKind = 'observation'): void {
    const turn = this.turns.at(-1);
    if (!turn) throw new Error('an observation must follow an action');
    turn.observation = (turn.observation ?? '') + text;
    this.push(ids, kind);
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

  /**
   * The sample; with a `failure` the status is the one it gives (failureStatus), else `end.status`.
   * `compacted`: a non-final segment of a compacted rollout (Sample.compacted), with `tokensAfter`
   * trainable tokens after it in the same rollout.
   */
  finish(end: {
    status: 'completed' | 'truncated';
    meta?: Record<string, JsonValue>;
    failure?: RolloutFailure;
    toolCalls?: ToolCallCounts;
    compacted?: boolean;
    tokensAfter?: number;
  }): Sample {
    const tokenKinds = Uint8Array.from(this.kinds);
    const status = end.failure ? failureStatus(end.failure) : end.status;
    const tokensAfter = end.tokensAfter ?? 0;
    if (!Number.isInteger(tokensAfter) || tokensAfter < 0) throw new RangeError(`tokensAfter must be a non-negative integer, got ${tokensAfter}`);
    const compacted = end.compacted === true;
    // A sub-agent's context ends at its answer but its future is its parent's: neither done nor truncated.
    const continues = compacted || this.options.parent !== undefined;
    return {
      tokens: [...this.tokens],
      responseStart: this.responseStart,
      tokenKinds,
      actionMask: maskOfKinds(tokenKinds, TRAINABLE_KINDS),
      observationMask: maskOfKinds(tokenKinds, ENVIRONMENT_KINDS),
      rolloutLogprobs: Float32Array.from(this.logprobs),
      stepRewards: [...this.rewards],
      reward: this.rewards.reduce((s, r) => s + r.value, 0),
      status,
      done: !continues && status === 'completed',
      truncated: !continues && status !== 'completed',
      ...(compacted ? { compacted: true as const } : {}),
      seed: this.ids.seed,
      rolloutId: this.ids.rolloutId,
      groupId: this.ids.groupId,
      segmentIndex: this.options.segmentIndex ?? 0,
      tokensAfter,
      ...(this.options.parent && this.options.branch ? { branch: this.options.branch, parent: { ...this.options.parent } } : {}),
      prompt: this.promptText,
      turns: this.turns.map((t) => ({ ...t })),
      meta: end.meta ?? {},
      ...(end.failure ? { failure: { ...end.failure } } : {}),
      ...(end.toolCalls ? { toolCalls: { ...end.toolCalls } } : {}),
    };
  }

  private push(ids: readonly number[], kind: TokenKind, logprobs?: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0) throw new RangeError(`token ids must be non-negative integers, got ${id}`);
      this.tokens.push(id);
      this.kinds.push(KIND_CODE[kind]);
      this.logprobs.push(logprobs ? logprobs[i] : 0);
    }
  }
}

/** A rollout that failed before its environment gave a prompt: no tokens, never trained. */
export function failedSample(ids: { seed: number; rolloutId: number; groupId: number }, failure: RolloutFailure): Sample {
  return {
    tokens: [],
    responseStart: 0,
    tokenKinds: new Uint8Array(0),
    actionMask: new Uint8Array(0),
    observationMask: new Uint8Array(0),
    rolloutLogprobs: new Float32Array(0),
    stepRewards: [],
    reward: 0,
    status: failureStatus(failure),
    done: false,
    truncated: true,
    ...ids,
    segmentIndex: 0,
    tokensAfter: 0,
    prompt: '',
    turns: [],
    meta: {},
    failure: { ...failure },
  };
}

/** Checks that a sample's masks are the ones its kinds give (a hand-edited mask would train the wrong tokens). */
export function checkSampleMasks(sample: Sample, index = 0): void {
  const L = sample.tokens.length;
  for (const [name, array] of [
    ['tokenKinds', sample.tokenKinds],
    ['actionMask', sample.actionMask],
    ['observationMask', sample.observationMask],
  ] as const) {
    if (array.length !== L) throw new RangeError(`sample ${index}: ${name} has ${array.length} entries for ${L} tokens`);
  }
  const trainable = maskOfKinds(sample.tokenKinds, TRAINABLE_KINDS);
  const environment = maskOfKinds(sample.tokenKinds, ENVIRONMENT_KINDS);
  for (let t = 0; t < L; t++) {
    if (sample.tokenKinds[t] >= TOKEN_KINDS.length) throw new RangeError(`sample ${index}: tokenKinds[${t}] = ${sample.tokenKinds[t]} is not a token kind`);
    if (sample.actionMask[t] !== trainable[t] || sample.observationMask[t] !== environment[t])
      throw new RangeError(`sample ${index}: the masks at token ${t} disagree with its kind "${TOKEN_KINDS[sample.tokenKinds[t]]}"`);
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
  terminal: Uint32Array; // terminal: [B] 1 = no bootstrap (done, or a compacted segment), 0 = truncated
  rolloutIds: Uint32Array; // rolloutIds: [B]
  groupIds: Uint32Array; // groupIds: [B]
  segmentIndex: Uint32Array; // segmentIndex: [B]
  tokensAfter: Uint32Array; // tokensAfter: [B]
}

/** Packs samples into [B, T] rows (left-aligned, padded with `padId`, masks 0 on padding). */
/**
 * `truncatedTerminal`: a truncated rollout is terminal too (rl.truncation = "terminal": its verifier
 * reward is final, no bootstrap value).
 */
export function packSamples(samples: readonly Sample[], T: number, padId: number, options: { truncatedTerminal?: boolean } = {}): PackedBatch {
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
    checkSampleMasks(s, b);
    const row = b * T;
    batch.tokens.set(s.tokens, row);
    batch.actionMask.set(s.actionMask, row);
    batch.observationMask.set(s.observationMask, row);
    batch.rewards.set(tokenRewards(s), row);
    batch.rolloutLogprobs.set(s.rolloutLogprobs, row);
    batch.lengths[b] = L;
    batch.responseStart[b] = s.responseStart;
    // A compacted segment has no bootstrap value: its future is the next segment, reached through
    // tokensAfter; a sub-agent's likewise is its parent's (branches.ts).
    const cutAndFinal = options.truncatedTerminal === true && s.status === 'truncated';
    batch.terminal[b] = s.compacted || s.parent || cutAndFinal || STATUS_RULES[s.status].terminal ? 1 : 0;
    batch.rolloutIds[b] = s.rolloutId;
    batch.groupIds[b] = s.groupId;
    batch.segmentIndex[b] = s.segmentIndex;
    batch.tokensAfter[b] = s.tokensAfter;
  });
  return batch;
}
