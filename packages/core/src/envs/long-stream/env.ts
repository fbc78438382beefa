// The LongStream environment: a ToolEnvironment with one tool, `next`, which takes no arguments and
// returns the stream's next chunk (one digit) between <tool_result> tags, then `end` once the
// stream is exhausted (and on every call after). The policy answers without a tool call; the
// answer verifier wants the digits' sum mod 10, then end-of-sequence. Every call costs 9 tokens
// (`<tool_call>next</tool_call>` 6, `<tool_result>d</tool_result>` 3), so a stream of n chunks fills
// 12 + 9n + 13 tokens uncut: past a small context after a handful of chunks, which is the point —
// the episode needs compaction (compaction.ts) and the summary it needs is one digit.
//
// summarize() is the deterministic summariser's text (compaction.ts): the running sum of every
// chunk delivered so far, the summary an honest policy writes.

import { z } from 'zod';
import type { Summarizing } from '../compaction.ts';
import type { ActionEnding, Environment, EpisodeStart, StepOutcome } from '../environment.ts';
import { defineTool, type Tool } from '../tool.ts';
import { ToolEnvironment } from '../tool-env.ts';
import { AnswerVerifier, type Verifier } from '../verifier.ts';
import { type LongStream, runningSum } from './stream.ts';

/** The prompt: 12 tokens, small beside a 64-token context. */
export const LONG_STREAM_PROMPT = 'sum mod 10:\n';
/** What `next` returns once every chunk has been given. */
export const END_OF_STREAM = 'end';

interface StreamSandbox {
  stream: LongStream;
  /** Chunks given so far. */
  given: number;
}

export const nextTool: Tool<StreamSandbox> = defineTool({
  name: 'next',
  description: 'Returns the next digit of the stream, or "end" when there are no more.',
  parameters: z.object({}),
  run(_args, ctx) {
    const { stream } = ctx.sandbox;
    if (ctx.sandbox.given >= stream.digits.length) return { text: END_OF_STREAM, info: { given: ctx.sandbox.given } };
    const digit = stream.digits[ctx.sandbox.given++];
    return { text: String(digit), info: { given: ctx.sandbox.given } };
  },
});

export class LongStreamEnv implements Environment, Summarizing {
  readonly name = 'long-stream';
  readonly verifier: Verifier = new AnswerVerifier();
  private readonly inner: ToolEnvironment<StreamSandbox>;
  private current: StreamSandbox | undefined;

  /** `stream(seed)`: the split's generator. */
  constructor(stream: (seed: number) => LongStream) {
    this.inner = new ToolEnvironment<StreamSandbox>({
      name: this.name,
      tools: [nextTool],
      verifier: this.verifier,
      task: (seed) => {
        const s = stream(seed);
        return { prompt: LONG_STREAM_PROMPT, info: { expected: s.answer, chunks: s.digits.length } };
      },
      sandbox: (seed) => {
        this.current = { stream: stream(seed), given: 0 };
        return this.current;
      },
      release: () => {
        this.current = undefined;
      },
      // The smallest limit ToolEnvironment takes; the tool's own outputs are 1–3 characters.
      output: { limit: 64, keep: 'head' },
    });
  }

  reset(seed: number): Promise<EpisodeStart> {
    return this.inner.reset(seed);
  }

  step(action: string, ending: ActionEnding): Promise<StepOutcome> {
    return this.inner.step(action, ending);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The running sum of the chunks given so far: what an honest summary holds. */
  summarize(): string {
    const sandbox = this.current;
    if (!sandbox) throw new Error('long-stream: summarize with no episode open');
    return runningSum(sandbox.stream.digits.slice(0, sandbox.given));
  }
}
