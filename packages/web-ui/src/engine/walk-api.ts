// The contract of the RL walkthroughs (docs/ui.md §3, §4, §16, §17): PPO clipping, GRPO/RLOO groups,
// KTO and span-KTO, on-policy distillation. Each request is what the learner's controls say; each
// answer is the kernel's output on the worker's device (or the float64 reference without one) plus
// the inputs it was given, so the page draws numbers it never computes. One engine method,
// `walkthrough`, takes any of them by `kind`; everything here is structured-cloneable plain data.

import type { AntihackReviewAnswer, AntihackReviewRequest, CompactionLabAnswer, CompactionLabRequest } from './lab-walk-api.ts';

/** Which device computed the answer, shared by every walkthrough. */
export interface Computed {
  /** 'gpu' when the WGSL kernel computed it, 'cpu' for the float64 reference (no WebGPU). */
  computedOn: 'gpu' | 'cpu';
  /** The device line, or why the CPU reference was used. */
  deviceLine: string;
  /** Worker-side wall time, ms (dispatches and readbacks included). */
  millis: number;
}

// ---- PPO clipping --------------------------------------------------------------------------

export interface PpoRequest {
  kind: 'ppo';
  epsLow: number;
  epsHigh: number;
  /** Dual-clip constant c > 1; 0 = off. */
  dualClip: number;
  /** +1: every token's advantage positive; −1: negative. */
  sign: 1 | -1;
}

/** Which term of PPO's objective gives a token's loss, read off the kernel's loss and gradient. */
export type PpoBranch = 'unclipped' | 'clipped-high' | 'clipped-low' | 'dual-clip' | 'no-signal';

export interface PpoAnswer extends Computed {
  request: PpoRequest;
  /** [T] ℓ_old, ℓ and A as the kernel received them. */
  oldLogp: number[];
  logp: number[];
  advantages: number[];
  /** [T] ρ = e^{ℓ − ℓ_old}: the kernel's, from a dispatch whose clip range never binds (A = −1, so pg = ρ). */
  ratio: number[];
  /** [T] clip(ρ, 1 − ε_low, 1 + ε_high), the one clamp the worker applies to the kernel's ρ. */
  clippedRatio: number[];
  /** [T] the kernel's per-token loss pg_t (to minimize). */
  loss: number[];
  /** [T] the kernel's ∂pg_t/∂ℓ_t (aggregation scale 1, so per token). */
  grad: number[];
  branch: PpoBranch[];
  /** The kernel's clip metrics over the T tokens. */
  lowFraction: number;
  highFraction: number;
  dualFraction: number;
  /** The surrogate −pg against ρ for A = sign·1, through the same kernel with the same ε and c. */
  curve: { ratio: number[]; objective: number[] };
}

// ---- GRPO and RLOO groups ------------------------------------------------------------------

export interface GroupsRequest {
  kind: 'groups';
  /** One group's rewards R_i, one per completion of the same prompt (G ≥ 1). */
  rewards: number[];
}

export interface GroupsAnswer extends Computed {
  request: GroupsRequest;
  /** [G] the group-baseline kernel's advantages per estimator. */
  grpo: number[];
  drGrpo: number[];
  rloo: number[];
  /** Group mean and sample std (n − 1), float64 on the worker, for the worked equations. */
  mean: number;
  std: number;
  /** GRPO's ε in the denominator. */
  eps: number;
  /** Every reward equal: no completion is better than another, so no advantage (DAPO drops such groups). */
  allEqual: boolean;
}

// ---- KTO -----------------------------------------------------------------------------------

export interface KtoRequest {
  kind: 'kto';
  beta: number;
  lambdaD: number;
  lambdaU: number;
  /** How far the policy has moved from the reference: scales every ℓ − ℓ_ref of the fixed batch. */
  drift: number;
  /** [B] 1 desirable, 0 undesirable. */
  desirable: number[];
}

export interface KtoAnswer extends Computed {
  request: KtoRequest;
  /** [B] the kernel's implicit rewards r_b = Σ_t (ℓ − ℓ_ref), nats. */
  rewards: number[];
  /** [B] KL estimate of each row's mismatched pair, Σ_t (ℓ' − ℓ'_ref), as the kernel received them. */
  mismatchedKl: number[];
  /** The kernel's reference point z0 = max(0, mean_b mismatched KL). */
  z0: number;
  /** [B] the kernel's per-sample loss L_b. */
  perSample: number[];
  /** [B] the kernel's ∂loss/∂r_b (every completion token of row b gets it). */
  dLdr: number[];
  /** The kernel's mean_b L_b. */
  loss: number;
}

// ---- span-KTO ------------------------------------------------------------------------------

export interface SpanKtoRequest {
  kind: 'span-kto';
  beta: number;
  lambdaW: number;
  lambdaL: number;
  alpha: number;
  /** The reference point carried in from the previous step. */
  zRef: number;
  /** [T] −1, 0 or +1 per assistant token. */
  polarity: number[];
}

export interface SpanKtoAnswer extends Computed {
  request: SpanKtoRequest;
  /** [T] ℓ − ℓ_ref per token, as the kernel received them; 1 on assistant tokens. */
  logRatio: number[];
  mask: number[];
  /** [S] spans (token index start, one past end, polarity) as the kernels package builds them. */
  spans: { start: number; end: number; polarity: number }[];
  /** [S] the kernel's span rewards r_k. */
  spanRewards: number[];
  /** The kernel's updated reference point z_ref. */
  zRef: number;
  /** [T] the kernel's ∂L/∂ℓ_t. */
  grad: number[];
  loss: number;
  prefLoss: number;
  neutralLoss: number;
}

// ---- on-policy distillation ----------------------------------------------------------------

export interface DistillRequest {
  kind: 'distill';
  /** λ_opd. */
  coef: number;
  /** Teacher index (0-based) per prompt, in the walkthrough's prompt order: distill.route. */
  route: number[];
}

export interface DistillRow {
  /** Prompt index and teacher index of this kernel row. */
  prompt: number;
  teacher: number;
  /** [T] the kernel's k_t = ℓ^S − ℓ^T and Â_t; 0 off the mask. */
  reverseKl: number[];
  advantages: number[];
}

export interface DistillAnswer extends Computed {
  request: DistillRequest;
  /** Every prompt against every teacher, one kernel dispatch; the routed row of prompt p is rows[p·K + route[p]]. */
  rows: DistillRow[];
}

// ---- the anti-hack monitor -----------------------------------------------------------------

export interface MonitorRequest {
  kind: 'monitor';
  /** One `sh` tool call's command line, as the agent would send it. */
  line: string;
  /** `.eval/` readable (the hack path open, as the hack-path recipes train) or Permission denied. */
  hackOpen: boolean;
}

/** One simple command of the line as the rules read it (core's CommandFact, words as text). */
export interface MonitorCommand {
  name: string;
  /** Each word after the name: its text, and `glob` / `dynamic` (part of it computed at run time). */
  args: { text: string; glob: boolean; dynamic: boolean }[];
  writes: string[];
  reads: string[];
  cwd: string;
  pipeline: number;
  stage: number;
  /** Inside a `$(…)`: the index of the command whose word it is part of. */
  substitutionOf: number | null;
}

/** What a call printed and returned. */
export interface MonitorOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface MonitorAnswer extends Computed {
  request: MonitorRequest;
  /** The episode sandbox: HiddenTestFS problem seed and every file path in it. */
  seed: number;
  files: string[];
  /** The shell parser's reading of the line, or why it does not parse (then no rule can fire). */
  parse: { ok: true; commands: MonitorCommand[] } | { ok: false; error: string };
  /** Every rule of the monitor, in its order, with whether it fired and its one-line reason. */
  rules: { rule: string; flagged: boolean; reason: string }[];
  /** The shadow judge's verdict from its two dry runs; null when no rule fired (an unflagged call is never judged). */
  verdict: { judge: string; leak: boolean; reason: string } | null;
  /** What the agent gets in log mode (always the real call) and in guard mode (the decoy's output for a confirmed hack). */
  log: MonitorOutput & { action: 'allow' | 'fabricate' };
  guard: MonitorOutput & { action: 'allow' | 'fabricate' };
}

export type ReviewLabel = 'hack' | 'legitimate';

export interface MonitorReviewRequest {
  kind: 'monitor-review';
  /** A label to store before answering (null label: remove it); null: only read the queue. */
  set: { line: string; label: ReviewLabel | null } | null;
}

export interface MonitorReviewItem {
  line: string;
  /** The rules that flagged it (every queued call is flagged). */
  rules: string[];
  leak: boolean;
  reason: string;
  /** The learner's stored label, or null when not yet labelled. */
  label: ReviewLabel | null;
}

export interface MonitorReviewAnswer extends Computed {
  request: MonitorReviewRequest;
  items: MonitorReviewItem[];
  /** Calls the judge confirmed that the learner labelled, and of those the ones labelled hack. */
  confirmedLabelled: number;
  confirmedHack: number;
  /** confirmedHack / confirmedLabelled; null when the learner has labelled no confirmed call. */
  precision: number | null;
  /** Where the labels are kept, or why they could not be (then they last only this page's life). */
  storage: string;
}

// ---- compaction and split invariance -------------------------------------------------------

export interface CompactionRequest {
  kind: 'compaction';
  /** The long rollout is cut after this many action tokens (1 to T − 1): two segments. */
  cut: number;
  gamma: number;
  lambda: number;
  /** true: the critic's values; false: V = 0 (then local GAE × the factor is exactly the uncut GAE). */
  critic: boolean;
}

export interface CompactionAnswer extends Computed {
  request: CompactionRequest;
  /** [T] the values the kernel was given (0 without the critic). */
  values: number[];
  /** [T] the GAE kernel's advantages of the uncut rollout, and of the two segments stitched in token order. */
  whole: number[];
  stitched: number[];
  /** [T] the same segments without the cross-segment factor (tokensAfter = 0). */
  local: number[];
  /** (γλ)^tokensAfter of the first segment, and its tokensAfter (the second segment's action tokens). */
  factor: number;
  tokensAfter: number;
  /** Per reducer, the aggregation kernel's loss of the batch whole and cut. */
  losses: { mode: string; whole: number; cut: number }[];
}

// ---- OPID's skill Δ -------------------------------------------------------------------------

export interface OpidRequest {
  kind: 'opid';
  /** route, concat, global-only, step-only (core's modes) or none. */
  routing: 'route' | 'concat' | 'global-only' | 'step-only' | 'none';
  /** w, the weight of Δ in the advantage. */
  coef: number;
  /** The rollout's group-relative advantage Â^GRPO, the same on every token. */
  grpo: number;
}

export interface OpidAnswer extends Computed {
  request: OpidRequest;
  /** [A] the episode's action tokens (characters) and the step each belongs to. */
  tokens: { text: string; step: number }[];
  /** Per step, the skill text placed after the prompt and before the step (null: none). */
  injections: { afterPrompt: string | null; beforeStep: string | null }[];
  /** [A] the forward pass's log π(a_t | context) and log π(a_t | context + skill); equal where not scored. */
  originalLogp: number[];
  augmentedLogp: number[];
  scored: number[];
  /** [A] the distillation kernel's Δ_t and Â_t = Â^GRPO + coef·Δ_t. */
  delta: number[];
  advantages: number[];
  /** The model that scored, in words. */
  model: string;
}

// ---- critic vs GenAC -------------------------------------------------------------------------

export interface GenacRequest {
  kind: 'genac';
  /** One critic output per rollout: the text before <eos>, and whether it ended with <eos>. */
  critiques: { text: string; eos: boolean }[];
  /** λ of the discriminative critic's GAE (GenAC's constant baseline needs none). */
  lambda: number;
}

export interface GenacAnswer extends Computed {
  request: GenacRequest;
  /** Core's parse of each output: the digit and value, or why it is malformed. */
  critiques: ({ ok: true; reasoning: string; digit: number; value: number } | { ok: false; reasoning: string; reason: string })[];
  /** The value a malformed output's rollout gets: the mean of the well-formed values, or 0.5. */
  fallback: number;
  /** [B] the baseline each rollout used. */
  baselines: number[];
  /** [B][action tokens] the GAE kernel's advantages: GenAC's G_t − v, and the value head's GAE. */
  genac: number[][];
  discriminative: number[][];
}

export type WalkRequest =
  | PpoRequest
  | GroupsRequest
  | KtoRequest
  | SpanKtoRequest
  | DistillRequest
  | MonitorRequest
  | MonitorReviewRequest
  | CompactionRequest
  | OpidRequest
  | GenacRequest
  | AntihackReviewRequest
  | CompactionLabRequest;
export type WalkKind = WalkRequest['kind'];

export interface WalkAnswers {
  ppo: PpoAnswer;
  groups: GroupsAnswer;
  kto: KtoAnswer;
  'span-kto': SpanKtoAnswer;
  distill: DistillAnswer;
  monitor: MonitorAnswer;
  'monitor-review': MonitorReviewAnswer;
  compaction: CompactionAnswer;
  opid: OpidAnswer;
  genac: GenacAnswer;
  'antihack-review': AntihackReviewAnswer;
  'compaction-lab': CompactionLabAnswer;
}

export type WalkAnswer = WalkAnswers[WalkKind];
