// The environment interface (v2): text in, text out. The policy's action is text decoded from the ids
// it sampled; the environment answers with an observation (a tool result, a user turn) or ends the
// episode. It does not score: the reward comes from the environment's verifier (verifier.ts), which
// the episode runner calls once the episode is over, on the whole trajectory — as
// PrimeIntellect-ai/verifiers gives an environment a rubric instead of rewards from `step`. Token ids
// never cross this boundary, so an environment works with any tokenizer; the episode runner
// (episode.ts) owns the ids and records them exactly as sampled (docs/algorithms/README.md §6,
// "string in, token out").
//
// Environment text is never parsed for special tokens: a plain string is encoded with specials off,
// so a file or a tool output holding "<eos>" or "</tool_result>" stays characters and cannot forge a
// turn. The environment's own markup is written as explicit `{ special }` parts (EnvText).

import type { SpecialToken } from '../tokenizer/char-tokenizer.ts';
import type { ObservationKind } from './sample.ts';
import type { Verifier } from './verifier.ts';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type MaybePromise<T> = T | Promise<T>;
/** Diagnostics for logs, the UI and the verifier (e.g. the expected answer). JSON-safe. */
export type Info = Record<string, JsonValue>;

/**
 * Why the policy's action ended:
 * - `eos`: it sampled the end-of-sequence token (not part of the action text);
 * - `stop`: its text reached one of the episode's stop strings (part of the action text) —
 *   a tool call is complete and the environment should answer it;
 * - `length`: it ran out of new-token budget or context before either.
 */
export type ActionEnding = 'eos' | 'stop' | 'length';

/** One piece of environment text: characters (specials never parsed), or one special token the environment writes as markup. */
export type EnvTextPart = string | { special: SpecialToken };
/** Text the environment writes into the context: a plain string, or parts mixing characters and markup. */
export type EnvText = string | readonly EnvTextPart[];

/** How a tool call went (tool-call.ts); the runner counts them per rollout. */
export type ToolCallOutcome = 'ok' | 'syntax' | 'unknown_tool' | 'schema' | 'missing_stop' | 'tool_error' | 'timeout';

export interface EpisodeStart {
  /** The first prompt. */
  prompt: EnvText;
  /**
   * Strings that end this episode's actions early, e.g. "</tool_call>" after a tool call. The sampler
   * checks them on the row's decoded text, per row (never pooled across a batch); the stop string is
   * part of the action text. Absent or empty for single-turn tasks.
   */
  stopStrings?: readonly string[];
  /** What the verifier needs to know about the episode (the expected answer, the task's tag). */
  info?: Info;
}

export type StepOutcome =
  | {
      /** The episode is over (a true terminal: no bootstrap value); the verifier scores it next. */
      done: true;
      /** Added to the episode's info (later keys win). */
      info?: Info;
    }
  | {
      done: false;
      /** Text appended to the context after the action. */
      observation: EnvText;
      /** Who wrote it (sample.ts TOKEN_KINDS; none trains); default `observation`, a tool result. */
      kind?: ObservationKind;
      info?: Info;
      /** Present when the action was a tool call: how it went, and whether its output was cut to the limit. */
      toolCall?: { outcome: ToolCallOutcome; outputTruncated: boolean };
    };

/**
 * Runs a sub-episode of `env` (its reset gives the sub-agent's prompt) in a fresh context; resolves
 * with the sub-agent's final answer, rejects with one sentence saying why there is none (delegate.ts).
 */
export type Delegate = (env: Environment) => Promise<string>;

/** What the runner offers one step besides the action; valid until the step returns. */
export interface StepContext {
  /** Starts a sub-agent (delegate.ts); absent where the runner offers none. */
  delegate?: Delegate;
}

export interface Environment {
  /** Short name, e.g. "addition". */
  readonly name: string;
  /** Scores an episode once it is over; the runner places the reward on its last action token. */
  readonly verifier: Verifier;
  /** Starts an episode; the same seed always gives the same episode. */
  reset(seed: number): MaybePromise<EpisodeStart>;
  /** Applies one action (decoded text, without the end-of-sequence token) and says what happened. */
  step(action: string, ending: ActionEnding, context?: StepContext): MaybePromise<StepOutcome>;
  /** Ends the episode and frees what it holds (a sandbox); called once per reset, after the verifier. */
  close(): MaybePromise<void>;
}

/** The characters and special tokens an environment's text uses: `new CharTokenizer(vocabulary)`. */
export interface Vocabulary {
  /** Every character prompts, answers and observations may contain. */
  characters: readonly string[];
  /** Special tokens by name (tokenizer/char-tokenizer.ts SPECIAL_TOKENS); must include "<eos>". */
  specialTokens: readonly string[];
  /** Append `<unk>` for characters outside the set (default true); false only where all text is the environment's own. */
  unknownToken?: boolean;
}

/**
 * One supervised example for the SFT warm start. Single-turn: train on `completion` followed by
 * end-of-sequence, the prompt masked out. Multi-turn: `turns` is a whole episode as the runner would
 * record it, and sftBatch trains on it instead; `prompt` and `completion` then hold its first prompt
 * and the rest as text (specials written as their names), for logs and for code that reads a prompt.
 */
export interface SftExample {
  prompt: string;
  completion: string;
  turns?: readonly SftTurn[];
}

/**
 * One turn of a multi-turn demonstration. Environment text (the prompt, each observation) never
 * trains and is encoded with specials off; an action is the policy's own text, encoded with specials
 * on (its `<tool_call>` tags are special tokens), and trains — with end-of-sequence after it when it
 * ended that way.
 */
export type SftTurn = { kind: 'observation'; text: EnvText } | { kind: 'action'; text: string; ending: 'eos' | 'stop' };

/** A multi-turn example from its turns, with the text fields filled in. */
export function multiTurnSftExample(turns: readonly SftTurn[]): SftExample {
  const [first, ...rest] = turns;
  if (first?.kind !== 'observation') throw new RangeError('a multi-turn SFT example must start with the prompt, an observation');
  const text = (t: SftTurn) => (t.kind === 'observation' ? renderEnvText(t.text) : t.text + (t.ending === 'eos' ? '<eos>' : ''));
  return { prompt: text(first), completion: rest.map(text).join(''), turns };
}

/** EnvText as one string, each special written as its name (for logs and Turn records). */
export function renderEnvText(text: EnvText): string {
  return typeof text === 'string' ? text : text.map((part) => (typeof part === 'string' ? part : part.special)).join('');
}
