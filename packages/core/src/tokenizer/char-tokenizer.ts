// Character-level tokenizer: one id per character of a set the environment chooses, plus special
// tokens for turns, tool calls, tool results and compaction summaries. Small vocabularies are the
// point: the addition task needs 12 characters and <eos>, 13 ids, so a tiny GPT spends no capacity
// on an embedding table of unused tokens.
//
// Ids: the chosen special tokens first, in the order given, then the characters in the order
// given, then `<unk>` last unless the vocabulary opts out: a character outside the set encodes as
// `<unk>` instead of throwing (a tool's output or a user's message may hold anything), and appending
// it keeps every other id where it was. `<unk>` decodes as U+FFFD "�", the mark text decoders leave
// for what they could not map, so a lost character stays visible even when specials are skipped, and
// encoding that mark gives `<unk>` back. A vocabulary whose text is all its own (addition writes
// only digits, '+' and '=') may leave `<unk>` out: the extra id would be one more embedding row and
// logit, which moves every number a model of it trains to. Without `<unk>`, a character outside the
// set is an error naming it. `encode` parses a special written as its name (e.g. "<tool_call>") as one token; text that
// did not come from the policy or the environment's own markup (a file's contents, a user's
// message) should be encoded with { specials: false } so it cannot forge a turn or a tool result.

/**
 * Every special token Horizon knows, in its default order. An environment picks the ones it uses.
 * - `<pad>`: fills a packed batch past a sequence's end (masked out of every loss).
 * - `<bos>`: the start of a sequence.
 * - `<eos>`: the policy ends its action and the episode turn; sampling it stops generation. Required.
 * - `<user>`, `<assistant>`: the start of a user or assistant turn in multi-turn dialogue.
 * - `<tool_call>` … `</tool_call>`: a tool call the policy writes; `</tool_call>` is the stop string
 *   at which generation pauses for the environment (and the anti-hack monitor) to answer.
 * - `<tool_result>` … `</tool_result>`: the environment's answer; never trained on as an action.
 * - `<summary>` … `</summary>`: a compaction summary that opens a fresh context (planned: docs/design.md §9).
 */
export const SPECIAL_TOKENS = [
  '<pad>',
  '<bos>',
  '<eos>',
  '<user>',
  '<assistant>',
  '<tool_call>',
  '</tool_call>',
  '<tool_result>',
  '</tool_result>',
  '<summary>',
  '</summary>',
] as const;

export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

/** The unknown-character token: always the last id, after the characters. */
export const UNK_TOKEN = '<unk>';
/** What `<unk>` decodes to (U+FFFD REPLACEMENT CHARACTER). */
export const UNK_TEXT = '\uFFFD';

/** Printable ASCII (space … '~', 95 characters) and newline: the default character set. */
export const PRINTABLE_ASCII: readonly string[] = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n'];

/** What a tokenizer is built from; an environment's Vocabulary ({ characters, specialTokens }) fits. */
export interface CharTokenizerOptions {
  /** One entry per character (a string is split into code points). Default: PRINTABLE_ASCII. */
  characters?: string | readonly string[];
  /** A subset of SPECIAL_TOKENS that must include "<eos>". Default: all of them. */
  specialTokens?: readonly string[];
  /** Append `<unk>` after the characters, for characters outside the set (default true). */
  unknownToken?: boolean;
}

export interface EncodeOptions {
  /** Parse special-token names in the text as special tokens (default true). */
  specials?: boolean;
}

export interface DecodeOptions {
  /** Leave special tokens out of the text (default false: they are written as their names). */
  skipSpecials?: boolean;
}

function show(ch: string): string {
  return `${JSON.stringify(ch)} (U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
}

export class CharTokenizer {
  /** The characters, in id order after the specials. */
  readonly characters: readonly string[];
  /** The special tokens, in id order from 0. */
  readonly specialTokens: readonly SpecialToken[];
  readonly vocabSize: number;
  /** Id of "<eos>". */
  readonly eosId: number;
  /** Id of "<pad>" when present, else of "<eos>": padding is masked out of every loss, so any id works. */
  readonly padId: number;
  /** Id of "<unk>" (vocabSize − 1), what a character outside the set encodes as; undefined when the vocabulary leaves it out. */
  readonly unkId: number | undefined;
  private readonly charIds = new Map<string, number>();
  private readonly specialIds = new Map<string, number>();
  private readonly pieces: string[];

  constructor(options: CharTokenizerOptions = {}) {
    const specials = options.specialTokens ?? SPECIAL_TOKENS;
    for (const [i, s] of specials.entries()) {
      if (!(SPECIAL_TOKENS as readonly string[]).includes(s)) {
        throw new RangeError(`specialTokens[${i}] = ${JSON.stringify(s)} is not a special token Horizon knows (${SPECIAL_TOKENS.join(' ')})`);
      }
      if (this.specialIds.has(s)) throw new RangeError(`specialTokens lists ${s} twice`);
      this.specialIds.set(s, i);
    }
    if (!this.specialIds.has('<eos>')) throw new RangeError('specialTokens must include "<eos>": sampling it is how an action ends');
    const chars = typeof options.characters === 'string' ? [...options.characters] : (options.characters ?? PRINTABLE_ASCII);
    if (chars.length === 0) throw new RangeError('characters must not be empty');
    for (const [i, c] of chars.entries()) {
      if (typeof c !== 'string' || [...c].length !== 1)
        throw new RangeError(`characters[${i}] = ${JSON.stringify(c)} must be exactly one character (code point)`);
      if (this.charIds.has(c)) throw new RangeError(`characters lists ${show(c)} twice`);
      if (c === UNK_TEXT) throw new RangeError(`characters[${i}] is ${show(c)}, which is how <unk> decodes; leave it out of the set`);
      this.charIds.set(c, specials.length + i);
    }
    this.specialTokens = specials as readonly SpecialToken[];
    this.characters = chars;
    const unknown = options.unknownToken ?? true;
    this.pieces = [...specials, ...chars, ...(unknown ? [UNK_TEXT] : [])];
    this.vocabSize = this.pieces.length;
    this.unkId = unknown ? this.vocabSize - 1 : undefined;
    this.eosId = this.specialIds.get('<eos>')!;
    this.padId = this.specialIds.get('<pad>') ?? this.eosId;
  }

  /** Id of a special token this tokenizer has; throws naming the ones it has otherwise. */
  id(special: SpecialToken): number {
    const id = this.specialIds.get(special);
    if (id === undefined) throw new RangeError(`this tokenizer has no ${special} (it has ${this.specialTokens.join(' ')})`);
    return id;
  }

  has(special: SpecialToken): boolean {
    return this.specialIds.has(special);
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < this.specialTokens.length;
  }

  /** Every token's text in id order (a special as its name, `<unk>` as U+FFFD): what a checkpoint records as its vocabulary. */
  pieceList(): string[] {
    return [...this.pieces];
  }

  /**
   * Text → ids; a character outside the set becomes `<unk>` (`unknownCharacters` finds them), or,
   * in a vocabulary without `<unk>`, is a RangeError naming it and where it is.
   */
  encode(text: string, options: EncodeOptions = {}): number[] {
    const parseSpecials = options.specials ?? true;
    const ids: number[] = [];
    let i = 0;
    while (i < text.length) {
      if (parseSpecials && text[i] === '<') {
        const special = this.specialAt(text, i);
        if (special) {
          ids.push(this.specialIds.get(special)!);
          i += special.length;
          continue;
        }
      }
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      const id = this.charIds.get(ch) ?? this.unkId;
      if (id === undefined) {
        const set = this.characters.length <= 40 ? `: ${JSON.stringify(this.characters.join(''))}` : '';
        throw new RangeError(
          `text has ${show(ch)} at index ${i}, which is not in this tokenizer's character set (${this.characters.length} characters${set}) and it has no <unk>`,
        );
      }
      ids.push(id);
      i += ch.length;
    }
    return ids;
  }

  /** The characters of `text` outside the set, each once with its first index: what would encode as <unk>. */
  unknownCharacters(text: string, options: EncodeOptions = {}): { character: string; index: number; description: string }[] {
    const seen = new Map<string, number>();
    let i = 0;
    while (i < text.length) {
      const special = (options.specials ?? true) && text[i] === '<' ? this.specialAt(text, i) : undefined;
      if (special) {
        i += special.length;
        continue;
      }
      const ch = String.fromCodePoint(text.codePointAt(i)!);
      if (!this.charIds.has(ch) && !seen.has(ch)) seen.set(ch, i);
      i += ch.length;
    }
    return [...seen].map(([character, index]) => ({ character, index, description: show(character) }));
  }

  /** Ids → text; specials are written as their names unless skipSpecials. */
  decode(ids: ArrayLike<number>, options: DecodeOptions = {}): string {
    let text = '';
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (!(Number.isInteger(id) && id >= 0 && id < this.vocabSize)) throw new RangeError(`ids[${k}] = ${id} is outside [0, vocabSize = ${this.vocabSize})`);
      if (options.skipSpecials && this.isSpecial(id)) continue;
      text += this.pieces[id];
    }
    return text;
  }

  /** The longest special token this tokenizer has whose name starts at text[i]. */
  private specialAt(text: string, i: number): string | undefined {
    let best: string | undefined;
    for (const s of this.specialTokens) if (text.startsWith(s, i) && (!best || s.length > best.length)) best = s;
    return best;
  }
}
