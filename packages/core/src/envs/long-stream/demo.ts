// The scripted honest policy of LongStream and the SFT demonstrations it writes, one compaction
// segment each. It calls `next` until the stream says `end`, then answers the running sum mod 10;
// when the episode runner would compact (the same rule as episode.ts: the segment has acted and the
// context plus maxNewTokens passes the episode's threshold), it answers `<summary>` with the
// running sum of every chunk seen so far — the kept recent steps included — and `</summary>`. In a
// segment after a cut the running sum is therefore the summary plus the chunks after the carried
// steps. The demonstrations assume the task's own compaction settings (LONG_STREAM_COMPACTION):
// the runner's threshold draw, one kept step, a 64-token context and 8 new tokens per action.
//
// Written here, not run: an SFT example is built synchronously. The tests replay the episodes
// through the real environment and the runner and require the same ids, segment for segment.

import { type CompactionOptions, compactionThreshold } from '../compaction.ts';
import { type EnvText, type EnvTextPart, multiTurnSftExample, type SftExample, type SftTurn } from '../environment.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, toolResultText } from '../tool-call.ts';
import { END_OF_STREAM, LONG_STREAM_PROMPT } from './env.ts';
import { type LongStream, runningSum } from './stream.ts';

/** The context LongStream trains at, and the new tokens an action may take (a call is 6, an answer 2). */
export const LONG_STREAM_CONTEXT = 64;
export const LONG_STREAM_MAX_NEW_TOKENS = 8;

/**
 * Compaction for LongStream at a 64-token context. Thresholds 48–56: the first window holds 4–5
 * calls, a later one (prompt 12 + summary 3 + one kept step 9 = 24 tokens to start) 2–3, so streams
 * of 7–12 chunks take 3–6 windows at every threshold in the range (the tests count them), and a
 * cut at 56 still leaves `<summary>`, a one-digit summary and `</summary>` room (56 + 3 + 3 ≤ 64).
 * Four summary tokens: the digit and `</summary>`, with two to spare for a policy that rambles.
 */
export const LONG_STREAM_COMPACTION: CompactionOptions = {
  minThreshold: 48,
  maxThreshold: 56,
  keepSteps: 1,
  summaryTokens: 4,
  summariser: 'policy',
  trainSummaries: true,
  // Training streams take 3–6 windows at every threshold (long-stream.test.ts); a slower policy is cut there.
  maxSegments: 6,
};

const NEXT_CALL = `${TOOL_CALL_OPEN}next${TOOL_CALL_CLOSE}`;
const SUMMARY_CLOSE = '</summary>';

/** Tokens of environment text for a character-level tokenizer: one per character, one per special. */
export function envTextTokens(text: EnvText): number {
  return typeof text === 'string' ? [...text].length : text.reduce((n, part) => n + (typeof part === 'string' ? [...part].length : 1), 0);
}

/** Tokens of an action's text: the special tags count one each, end-of-sequence one. */
function actionTokens(text: string, ending: 'eos' | 'stop'): number {
  const specials = [TOOL_CALL_OPEN, TOOL_CALL_CLOSE, SUMMARY_CLOSE];
  let rest = text;
  let n = 0;
  for (const s of specials) {
    n += rest.split(s).length - 1;
    rest = rest.replaceAll(s, '');
  }
  return n + [...rest].length + (ending === 'eos' ? 1 : 0);
}

/** A step as carried into a new context: the call and its result, as environment text. */
function carriedStep(result: string): EnvTextPart[] {
  return [{ special: '<tool_call>' }, 'next', { special: '</tool_call>' }, ...toolResultText(result)];
}

interface Step {
  result: string;
}

/**
 * The honest episode of `stream` at `threshold`, cut into its segments, each as the turns of one
 * context (its first observation is the prompt with what it carries).
 */
export function honestSegments(stream: LongStream, threshold: number, options: Pick<CompactionOptions, 'keepSteps'> = LONG_STREAM_COMPACTION): SftTurn[][] {
  const segments: SftTurn[][] = [];
  let turns: SftTurn[] = [{ kind: 'observation', text: LONG_STREAM_PROMPT }];
  let length = envTextTokens(LONG_STREAM_PROMPT);
  let acted = 0;
  let given = 0;
  let ended = false;
  const steps: Step[] = [];
  const push = (turn: SftTurn) => {
    turns.push(turn);
    length += turn.kind === 'observation' ? envTextTokens(turn.text) : actionTokens(turn.text, turn.ending);
  };
  for (;;) {
    if (acted > 0 && length + LONG_STREAM_MAX_NEW_TOKENS > threshold) {
      const sum = runningSum(stream.digits.slice(0, given));
      // The runner writes `<summary>` after the last observation; the demonstration joins them into one observation turn.
      const last = turns.at(-1);
      if (last?.kind !== 'observation') throw new Error('long-stream: a cut must follow an observation');
      turns[turns.length - 1] = { kind: 'observation', text: [...envParts(last.text), { special: '<summary>' }] };
      push({ kind: 'action', text: `${sum}${SUMMARY_CLOSE}`, ending: 'stop' });
      segments.push(turns);
      const kept = options.keepSteps > 0 ? steps.slice(-options.keepSteps) : [];
      const carried: EnvTextPart[] = [
        LONG_STREAM_PROMPT,
        { special: '<summary>' },
        sum,
        { special: '</summary>' },
        ...kept.flatMap((s) => carriedStep(s.result)),
      ];
      turns = [];
      length = 0;
      push({ kind: 'observation', text: carried });
      acted = 0;
      continue;
    }
    acted++;
    if (ended) {
      push({ kind: 'action', text: runningSum(stream.digits), ending: 'eos' });
      segments.push(turns);
      return segments;
    }
    const result = given < stream.digits.length ? String(stream.digits[given++]) : END_OF_STREAM;
    if (result === END_OF_STREAM) ended = true;
    push({ kind: 'action', text: NEXT_CALL, ending: 'stop' });
    push({ kind: 'observation', text: toolResultText(result) });
    steps.push({ result });
  }
}

function envParts(text: EnvText): readonly EnvTextPart[] {
  return typeof text === 'string' ? [text] : text;
}

/** Tokens of one segment's turns (for the context checks). */
export function segmentTokens(turns: readonly SftTurn[]): number {
  return turns.reduce((n, t) => n + (t.kind === 'observation' ? envTextTokens(t.text) : actionTokens(t.text, t.ending)), 0);
}

/** The demonstration of one segment, `pick` choosing which (any non-negative integer; taken modulo the segment count). */
export function honestDemonstration(stream: LongStream, episodeSeed: number, pick: number): SftExample {
  const segments = honestSegments(stream, compactionThreshold(episodeSeed, LONG_STREAM_COMPACTION));
  return multiTurnSftExample(segments[pick % segments.length]);
}
