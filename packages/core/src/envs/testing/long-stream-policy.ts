// LongStream's honest policy read off the context alone, for the tests that drive the real runner
// with a scripted sampler: what a model trained on the demonstrations (demo.ts) should write. The
// running sum is the newest complete summary, plus every chunk after it except the `keepSteps`
// carried steps, which the summary already counts.

import type { ActionEnding } from '../environment.ts';
import { END_OF_STREAM } from '../long-stream/env.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../tool-call.ts';

export function longStreamPolicy(context: string, keepSteps: number): { text: string; ending: ActionEnding } {
  const sum = runningSumOf(context, keepSteps);
  if (context.endsWith('<summary>')) return { text: `${sum}</summary>`, ending: 'stop' };
  if (context.endsWith(`<tool_result>${END_OF_STREAM}</tool_result>`)) return { text: String(sum), ending: 'eos' };
  return { text: `${TOOL_CALL_OPEN}next${TOOL_CALL_CLOSE}`, ending: 'stop' };
}

function runningSumOf(context: string, keepSteps: number): number {
  const summaries = [...context.matchAll(/<summary>(\d)<\/summary>/g)];
  const last = summaries.at(-1);
  const from = last ? (last.index ?? 0) + last[0].length : 0;
  const results = [...context.slice(from).matchAll(/<tool_result>(\w+)<\/tool_result>/g)].map((m) => m[1]);
  const fresh = (last ? results.slice(keepSteps) : results).filter((r) => r !== END_OF_STREAM);
  return (Number(last?.[1] ?? 0) + fresh.reduce((s, d) => s + Number(d), 0)) % 10;
}
