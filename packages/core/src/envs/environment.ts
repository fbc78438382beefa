// The environment interface: text in, text out. The policy's action is text decoded from the ids it
// sampled; the environment answers with an observation (a tool result, a user turn) or ends the
// episode. Token ids never cross this boundary, so an environment works with any tokenizer; the
// episode runner (episode.ts) owns the ids, and records them exactly as sampled (docs/algorithms/README.md §6,
// "string in, token out").

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type MaybePromise<T> = T | Promise<T>;

/**
 * Why the policy's action ended:
 * - `eos`: it sampled the end-of-sequence token (not part of the action text);
 * - `stop`: its text reached one of the environment's stop strings (part of the action text) —
 *   a tool call is complete and the environment should answer it;
 * - `length`: it ran out of new-token budget or context before either.
 */
export type ActionEnding = 'eos' | 'stop' | 'length';

export interface StepResult {
  /** Text appended to the context after the action (tool output, user turn); absent when done. */
  observation?: string;
  /** Reward for this step; the runner places it on the last token of the action (docs/algorithms/README.md §1). */
  reward: number;
  /** The episode is over (a true terminal: no bootstrap value). */
  done: boolean;
  /** Diagnostics for logs and the UI (e.g. the expected answer, whether it was correct). JSON-safe. */
  info: Record<string, JsonValue>;
}

export interface Environment {
  /** Short name, e.g. "addition". */
  readonly name: string;
  /**
   * Strings that end an action early, e.g. "</call>" after a tool call. The sampler checks them
   * on decoded text; the stop string is included in the action text. Empty for single-turn tasks.
   */
  readonly stopStrings: readonly string[];
  /** Starts an episode; the same seed always gives the same episode. Returns the first prompt text. */
  reset(seed: number): MaybePromise<string>;
  /** Applies one action (decoded text, without the end-of-sequence token) and says what happened. */
  step(action: string, ending: ActionEnding): MaybePromise<StepResult>;
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

/** One supervised example for the SFT warm start: train on `completion` followed by end-of-sequence. */
export interface SftExample {
  prompt: string;
  completion: string;
}
