// The OPID lab's fixed inputs and the shapes that cross the worker boundary (engine/opid-lab.ts
// computes them, views/labs/opid-lab.ts draws them). No imports: the page's bundle reads these
// without pulling in core.

/** The lab's run: `hidden-opid` with a short warm start and a few iterations (every rollout logged, so the lab sees whole groups). */
export const OPID_LAB_PRESET = 'hidden-opid';
export const OPID_LAB_SETS: readonly string[] = [
  'sft.steps=40',
  'sft.batchSize=8',
  'sft.lr=0.01',
  'rl.iterations=6',
  'eval.interval=0',
  'eval.heldOutSize=4',
  'eval.oodSize=4',
  'checkpoint.interval=0',
  'log.allSamples=true',
];

/** The routing switch: core's four modes (ROUTING_MODES, recipe/schema.ts; the browser test checks they agree) and no skill at all. */
export const OPID_LAB_ROUTINGS = ['route', 'concat', 'global-only', 'step-only', 'none'] as const;
export type OpidLabRouting = (typeof OPID_LAB_ROUTINGS)[number];

/** One step (action) of a rollout as the lab lists it. */
export interface OpidLabStep {
  /** The action's text (a tool call or the answer). */
  action: string;
  /** The critical point the step sits at (docs/algorithms/opid.md §2), or null. */
  critical: string | null;
  /** The skill text the trainer scored the step with (meta.opidRouted; '' where none). */
  routed: string;
}

export interface OpidLabRollout {
  /** Index among the iteration's rollouts (the rescore request's `rollout`). */
  index: number;
  rolloutId: number;
  groupId: number;
  reward: number;
  steps: OpidLabStep[];
  /** Action tokens, and how many of them a skill scored (logged Δ ≠ 0 or scored). */
  actionTokens: number;
}

/** A group's skills as core's parser mined them from its rollouts (meta.opidSkills). */
export interface OpidLabGroup {
  groupId: number;
  global: string | null;
  afterReadme: string | null;
  afterFail: string | null;
}

/** The latest RL iteration's rollouts and skills. */
export interface OpidLabState {
  /** The RL iteration the rollouts were sampled in (1-based, as the metrics rows count). */
  iteration: number;
  routing: Exclude<OpidLabRouting, 'none'>;
  coef: number;
  groups: OpidLabGroup[];
  rollouts: OpidLabRollout[];
}

export interface OpidRescoreRequest {
  /** The RL iteration the page shows (a newer one refuses, so the numbers never mix iterations). */
  iteration: number;
  rollout: number;
  routing: OpidLabRouting;
}

export interface OpidRescoreAnswer {
  request: OpidRescoreRequest;
  /** One entry per action token of the rollout, in order. */
  tokens: { text: string; step: number }[];
  /** log π_old(a | context), rescored here. */
  plainLogp: number[];
  /** log π_old(a | context + routed skill); the plain value where no skill scored the token. */
  skillLogp: number[];
  /** 1 where the routing scored the token with a skill. */
  scored: number[];
  /** Δ from the kernel. */
  delta: number[];
  /** Δ the trainer logged for this rollout (samples' `skill_delta` channel, under the run's routing). */
  loggedDelta: number[];
  /** Â^GRPO of the rollout's tokens: the logged advantage minus coef·(logged Δ). */
  grpo: number[];
  /** Â = Â^GRPO + coef·Δ, from the kernel. */
  advantages: number[];
  /** The advantage the trainer logged (samples' `advantage` channel). */
  loggedAdvantage: number[];
  coef: number;
  /** Per step, the skill text this routing scores it with ('' where none). */
  injections: string[];
  computedOn: 'gpu';
  deviceLine: string;
  millis: number;
}
