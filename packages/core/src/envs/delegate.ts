// Sub-agents: a `delegate` tool an environment can offer, and the environment a sub-agent runs in.
// The policy calls `<tool_call>delegate the sub-task text</tool_call>`; the episode runner
// (episode.ts) starts a sub-episode in a fresh context — the sub-agent header and the task as its
// prompt, its own tools, its own turn and context budget — sampled by the same policy in the same
// batched sampler calls as every other episode. Its final answer (its last action, the one that is no
// tool call) comes back to the parent as the tool's output: environment text, never trained there.
// Each context is its own Sample (branches.ts): the trajectory becomes a tree and every token trains
// once, in the context that sampled it — the shape of slime's multi-agent samples and of verifiers'
// multi-step trajectories, where each model call is its own prompt/completion pair.
//
// Limits: `maxDepth` (default 1: a sub-agent cannot delegate) and `maxPerRollout` sub-agents per
// rollout (default 4). A call past either, a sub-agent that fails or is cut off before it answers,
// or an episode the runner offers no delegation: the parent reads an error observation and goes on.
// Left out: sub-agents running in parallel from one action (one call starts one sub-agent), passing
// files or the parent's context to the child (the task text is all it gets), and compaction inside a
// sub-agent (its context is bounded by its own budget instead).

import { z } from 'zod';
import { branchDepth } from './branches.ts';
import type { Environment, MaybePromise } from './environment.ts';

export type { Delegate } from './environment.ts';

import { defineTool, type Tool, type ToolContext } from './tool.ts';
import type { OutputLimit } from './tool-call.ts';
import { ToolEnvironment } from './tool-env.ts';
import type { Verifier } from './verifier.ts';

export const DELEGATE_TOOL = 'delegate';

/** What a sub-agent's prompt starts with, before the task text: it tells the policy which role it is in. */
export const SUB_AGENT_HEADER = 'Sub-task: ';

export interface SubAgentLimits {
  /** How deep the tree may go: 1 lets the root delegate and no sub-agent (the default). */
  maxDepth?: number;
  /** Sub-agents one rollout may start, over its whole tree (default 4). */
  maxPerRollout?: number;
  /** Actions a sub-agent may take before it is cut off (default: the rollout's maxTurns). */
  maxTurns?: number;
  /** A sub-agent's context, in tokens (default and most: the rollout's contextLength). */
  contextLength?: number;
}

export const DEFAULT_SUB_AGENT_LIMITS = { maxDepth: 1, maxPerRollout: 4 } as const;

/**
 * The largest depth and per-rollout count the sampler keys can name: each level of a branch takes
 * 8 bits of the 31 a child's key word has (branches.ts samplerSegmentWord).
 */
export const MAX_SUB_AGENT_DEPTH = 3;
export const MAX_SUB_AGENTS_PER_ROLLOUT = 255;

export function checkSubAgentLimits(limits: SubAgentLimits, contextLength: number): void {
  const ranges = { maxDepth: [0, MAX_SUB_AGENT_DEPTH], maxPerRollout: [0, MAX_SUB_AGENTS_PER_ROLLOUT], contextLength: [1, contextLength] } as const;
  for (const key of ['maxDepth', 'maxPerRollout', 'contextLength'] as const) {
    const v = limits[key];
    const [low, high] = ranges[key];
    if (v !== undefined && (!Number.isInteger(v) || v < low || v > high))
      throw new RangeError(`subAgents.${key} must be an integer from ${low} to ${high}, got ${v}`);
  }
  const turns = limits.maxTurns;
  if (turns !== undefined && (!Number.isInteger(turns) || turns < 1)) throw new RangeError(`subAgents.maxTurns must be a positive integer, got ${turns}`);
}

/** Why `parent` may not start a sub-agent now (its tree has started `started`), or undefined when it may. */
export function delegationRefusal(parent: string, started: number, limits: Required<Pick<SubAgentLimits, 'maxDepth' | 'maxPerRollout'>>): string | undefined {
  if (limits.maxDepth === 0) return 'sub-agents are off in this run (subAgents.maxDepth is 0)';
  if (branchDepth(parent) + 1 > limits.maxDepth) return `sub-agents may nest ${limits.maxDepth} deep, so sub-agent ${parent} cannot start another`;
  if (started >= limits.maxPerRollout) return `this rollout has already started the ${limits.maxPerRollout} sub-agents it may`;
  return undefined;
}

/**
 * The `delegate` tool: its one argument is the sub-task text, and `subAgent` makes the environment
 * the sub-agent runs in (subAgentEnvironment). It is exempt from the tool timeout: it waits for
 * sampling, which the runner bounds by the sub-agent's turn budget instead.
 */
export function delegateTool<S>(subAgent: (task: string, ctx: ToolContext<S>) => Environment): Tool<S> {
  const tool = defineTool({
    name: DELEGATE_TOOL,
    description: 'Hands a sub-task to a sub-agent with a fresh context and returns its final answer.',
    parameters: z.object({ task: z.string().min(1) }),
    timeoutMs: Number.POSITIVE_INFINITY,
    run: ({ task }, ctx: ToolContext<S>) => {
      if (!ctx.delegate) throw new Error('this episode cannot start sub-agents');
      return ctx.delegate(subAgent(task, ctx));
    },
  });
  return tool as unknown as Tool<S>;
}

/** A sub-agent is never scored on its own: the root's verifier scores the tree (branches.ts). */
export const SCORED_BY_ROOT: Verifier = {
  name: 'scored-by-root',
  score() {
    throw new Error('a sub-agent is scored through its root rollout, not on its own');
  },
};

export interface SubAgentOptions<S> {
  name: string;
  /** The sub-task text: the prompt is SUB_AGENT_HEADER followed by it. */
  task: string;
  /** The sub-agent's own tools; leaving `delegate` out makes the depth limit a matter of the tool set too. */
  tools: readonly Tool<S>[];
  sandbox(seed: number): MaybePromise<S>;
  release?(sandbox: S): MaybePromise<void>;
  output?: OutputLimit;
  toolTimeoutMs?: number;
}

/** The environment a sub-agent runs in: a tool environment whose final answer (its last action that calls no tool) ends it. */
export function subAgentEnvironment<S>(options: SubAgentOptions<S>): Environment {
  return new ToolEnvironment({
    name: options.name,
    tools: options.tools,
    verifier: SCORED_BY_ROOT,
    task: () => ({ prompt: SUB_AGENT_HEADER + options.task }),
    sandbox: options.sandbox,
    ...(options.release ? { release: options.release } : {}),
    ...(options.output ? { output: options.output } : {}),
    ...(options.toolTimeoutMs !== undefined ? { toolTimeoutMs: options.toolTimeoutMs } : {}),
  });
}
