// A test environment that offers the `delegate` tool (delegate.ts): the root is asked for the sum of
// two numbers drawn from its seed and may hand "add a b" to a sub-agent, whose one tool is `add`;
// the root's answer is checked against the sum. `child` picks what the sub-agent is: the normal adder,
// an adder that may delegate too (the depth limit's case), or an environment whose step throws (a
// failing sub-agent). `delegatePolicy` is a scripted policy for it: each context calls the next tool
// once and then answers with the last number it was given. Used by the sub-agent tests (tree shape,
// limits, replay on the GPU).

import { z } from 'zod';
import { DELEGATE_TOOL, delegateTool, SUB_AGENT_HEADER, subAgentEnvironment } from '../delegate.ts';
import type { ActionEnding, Environment, EpisodeStart, StepOutcome } from '../environment.ts';
import { mixSeed } from '../seeds.ts';
import { defineTool, type Tool } from '../tool.ts';
import { ToolEnvironment } from '../tool-env.ts';
import { AnswerVerifier } from '../verifier.ts';
import type { Script } from './scripted-sampler.ts';

export type ChildKind = 'adder' | 'delegating' | 'throwing';

/** `add a b`: the tool the test sub-agents use. */
export const addTool = defineTool({
  name: 'add',
  description: 'Adds two integers.',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  run: ({ a, b }) => String(a + b),
}) as unknown as Tool<null>;

/** A sub-agent whose every step throws: its parent must read an error and go on. */
class ThrowingSubAgent implements Environment {
  readonly name = 'throwing-sub-agent';
  readonly verifier = new AnswerVerifier();
  constructor(private readonly task: string) {}
  reset(): EpisodeStart {
    return { prompt: SUB_AGENT_HEADER + this.task };
  }
  step(_action: string, _ending: ActionEnding): StepOutcome {
    throw new Error('the sub-agent crashed');
  }
  close(): void {}
}

/** The two numbers of the episode of `seed`, 1 to 9 each. */
export function delegatedProblem(seed: number): { a: number; b: number } {
  const h = mixSeed(seed, 0xadd);
  return { a: 1 + (h % 9), b: 1 + ((h >>> 8) % 9) };
}

export function delegatingEnv(child: ChildKind = 'adder'): Environment {
  const subAgent = (task: string): Environment => {
    if (child === 'throwing') return new ThrowingSubAgent(task);
    const tools: Tool<null>[] = child === 'delegating' ? [addTool, delegateTool<null>(subAgent)] : [addTool];
    return subAgentEnvironment<null>({ name: 'adder', task, tools, sandbox: () => null });
  };
  return new ToolEnvironment<null>({
    name: 'delegating',
    tools: [delegateTool<null>(subAgent)],
    verifier: new AnswerVerifier(),
    task: (seed) => {
      const { a, b } = delegatedProblem(seed);
      return { prompt: `Sum ${a} and ${b}.`, info: { expected: String(a + b) } };
    },
    sandbox: () => null,
  });
}

/**
 * The scripted policy: the root's first action delegates `add a b` (`delegates` times in a row),
 * a sub-agent's first action calls `firstChildTool` (add, or delegate again), and any context that
 * has a tool result answers with the last one's text, or "0" when it was an error.
 */
export function delegatePolicy(options: { delegates?: number; firstChildTool?: 'add' | typeof DELEGATE_TOOL } = {}): Script {
  const delegates = options.delegates ?? 1;
  return (context) => {
    const results = context.split('<tool_result>').length - 1;
    const numbers = /(\d+) and (\d+)|add (\d+) (\d+)/.exec(context);
    const [a, b] = numbers ? [numbers[1] ?? numbers[3], numbers[2] ?? numbers[4]] : ['0', '0'];
    const isChild = context.startsWith(SUB_AGENT_HEADER);
    if (!isChild && results < delegates) return { text: `<tool_call>${DELEGATE_TOOL} add ${a} ${b}</tool_call>`, ending: 'stop' };
    if (isChild && results === 0) return { text: `<tool_call>${options.firstChildTool ?? 'add'} ${a} ${b}</tool_call>`, ending: 'stop' };
    const last = context.slice(context.lastIndexOf('<tool_result>') + '<tool_result>'.length, context.lastIndexOf('</tool_result>'));
    return { text: /^\d+$/.test(last) ? last : '0', ending: 'eos' };
  };
}
