// A tool an environment offers the policy: a name, a description, the schema of its arguments, and
// `run(args, ctx)`. The arguments are a zod object, so one declaration gives the runtime check
// (tool-call.ts validates every call against it) and the JSON schema a prompt or a model card shows
// (`toolSpec`, through zod 4's `z.toJSONSchema`) — the shape OpenAI-style function calling uses.
// `ctx` is what the environment gives every call and the policy never sees in the schema: the
// episode's sandbox (its type is the environment's own, `S`), the episode's state, and a deadline.

import { z } from 'zod';
import type { Delegate, Info, JsonValue, MaybePromise } from './environment.ts';

/** What an episode's tools share: readable and writable by every tool call, and by the verifier through the trajectory's info. */
export interface EpisodeState {
  readonly seed: number;
  /** Actions so far in this episode (1 during the first tool call). */
  turn: number;
  /** Written by tools (e.g. which tests passed), read by the verifier: the episode's info. */
  info: Info;
}

export interface ToolContext<S> {
  /** The environment's sandbox for this episode (a file system, a process): whatever type it chose. */
  sandbox: S;
  episode: EpisodeState;
  /** When the call must have returned, in milliseconds on the `performance.now()` clock; past it the call is abandoned as a timeout. */
  deadline: number;
  /** Starts a sub-agent (delegate.ts), where the runner offers one to this step. */
  delegate?: Delegate;
}

/** Text for the context, and optionally structured info added to the episode's info. */
export type ToolOutput = string | { text: string; info?: Info };

/** The arguments of a tool: a zod object whose fields are its parameters, in the order a positional call lists them. */
export type ToolParameters = z.ZodObject;

export interface Tool<S, P extends ToolParameters = ToolParameters> {
  /** One word: what the policy writes first in a tool call. */
  readonly name: string;
  /** One sentence: what it does, for the prompt and the schema. */
  readonly description: string;
  readonly parameters: P;
  /** How long one call may run, overriding the environment's; Infinity: no limit (the delegate tool, bounded by the sub-agent's budget). */
  readonly timeoutMs?: number;
  run(args: z.infer<P>, ctx: ToolContext<S>): MaybePromise<ToolOutput>;
}

/** A tool with its argument types inferred from its schema. */
export function defineTool<S, P extends ToolParameters>(tool: Tool<S, P>): Tool<S, P> {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(tool.name))
    throw new RangeError(`tool name ${JSON.stringify(tool.name)} must be one word of letters, digits, '_' and '-', starting with a letter or '_'`);
  return tool;
}

/** What a model is told about a tool: its name, description and the JSON schema of its arguments (ctx is not in it). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: { [key: string]: JsonValue };
}

export function toolSpec<S>(tool: Tool<S>): ToolSpec {
  const schema = z.toJSONSchema(tool.parameters) as { [key: string]: JsonValue };
  // The dialect URI says nothing to a model; the rest is the schema.
  const parameters = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== '$schema'));
  return { name: tool.name, description: tool.description, parameters };
}
