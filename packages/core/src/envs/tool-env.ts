// A tool-using environment from parts: a task per seed (the prompt and what its verifier needs), a
// fresh sandbox per episode, the tools, and a verifier. Each action is either a tool call — answered
// with the tool's output between <tool_result> tags, the wrapper as special tokens and the output as
// plain text (environment.ts) — or the episode's final answer, which ends it. Broken calls and
// failing tools are answered with an error observation and the episode goes on (tool-call.ts).
// This is the multi-turn loop of ReAct-style agents (arXiv:2210.03629) with the tool schema of
// function calling; the sandbox type is the environment's own, so this file knows nothing of it.

import type { ActionEnding, Environment, EnvText, EpisodeStart, Info, MaybePromise, StepContext, StepOutcome } from './environment.ts';
import type { EpisodeState, Tool } from './tool.ts';
import {
  extractToolCall,
  failedCall,
  type OutputLimit,
  parseToolCall,
  runToolCall,
  TOOL_CALL_CLOSE,
  type ToolCallResult,
  toolResultText,
} from './tool-call.ts';
import type { Verifier } from './verifier.ts';

/** One episode's task: its first prompt and the info its verifier reads (an expected answer, the tests to run). */
export interface ToolTask {
  prompt: EnvText;
  info?: Info;
}

export interface ToolEnvironmentOptions<S> {
  name: string;
  tools: readonly Tool<S>[];
  verifier: Verifier;
  task(seed: number): MaybePromise<ToolTask>;
  /** A fresh sandbox for the episode of `seed`. */
  sandbox(seed: number): MaybePromise<S>;
  /** Frees an episode's sandbox when the episode closes. */
  release?(sandbox: S): MaybePromise<void>;
  /** How much of a tool's output the context takes, and which end. Default 2048 code units, the head. */
  output?: OutputLimit;
  /** How long one tool call may run (ToolContext.deadline). Default 10 000 ms. */
  toolTimeoutMs?: number;
}

export const DEFAULT_OUTPUT_LIMIT: OutputLimit = { limit: 2048, keep: 'head' };
export const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

export class ToolEnvironment<S> implements Environment {
  readonly name: string;
  readonly verifier: Verifier;
  private readonly tools: ReadonlyMap<string, Tool<S>>;
  private readonly output: OutputLimit;
  private readonly timeoutMs: number;
  private episode: { state: EpisodeState; sandbox: S } | undefined;

  constructor(private readonly options: ToolEnvironmentOptions<S>) {
    this.name = options.name;
    this.verifier = options.verifier;
    const tools = new Map<string, Tool<S>>();
    for (const tool of options.tools) {
      if (tools.has(tool.name)) throw new RangeError(`${options.name}: two tools are named "${tool.name}"`);
      tools.set(tool.name, tool);
    }
    this.tools = tools;
    this.output = options.output ?? DEFAULT_OUTPUT_LIMIT;
    if (!Number.isInteger(this.output.limit) || this.output.limit < 64)
      throw new RangeError(`${options.name}: output.limit must be an integer of at least 64 (room for the cut marker), got ${this.output.limit}`);
    this.timeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`${options.name}: toolTimeoutMs must be positive, got ${this.timeoutMs}`);
  }

  async reset(seed: number): Promise<EpisodeStart> {
    if (this.episode) throw new Error(`${this.name}: reset while an episode is open; close it first`);
    const task = await this.options.task(seed);
    const sandbox = await this.options.sandbox(seed);
    this.episode = { state: { seed, turn: 0, info: { ...task.info } }, sandbox };
    return { prompt: task.prompt, stopStrings: [TOOL_CALL_CLOSE], info: { ...task.info } };
  }

  async step(action: string, ending: ActionEnding, context: StepContext = {}): Promise<StepOutcome> {
    const episode = this.episode;
    if (!episode) throw new Error(`${this.name}: step before reset (or after close)`);
    episode.state.turn++;
    const call = extractToolCall(action, ending);
    if (!call) return { done: true, info: { ...episode.state.info } };
    let result: ToolCallResult;
    if ('outcome' in call) result = failedCall(call, this.output);
    else {
      const parsed = parseToolCall(call.body, this.tools);
      result =
        'outcome' in parsed
          ? failedCall(parsed, this.output)
          : await runToolCall(
              parsed,
              { sandbox: episode.sandbox, episode: episode.state, ...(context.delegate ? { delegate: context.delegate } : {}) },
              parsed.tool.timeoutMs ?? this.timeoutMs,
              this.output,
            );
    }
    if (result.info) Object.assign(episode.state.info, result.info);
    return {
      done: false,
      observation: toolResultText(result.text),
      info: { ...episode.state.info },
      toolCall: { outcome: result.outcome, outputTruncated: result.outputTruncated },
    };
  }

  async close(): Promise<void> {
    const episode = this.episode;
    this.episode = undefined;
    if (episode) await this.options.release?.(episode.sandbox);
  }
}
