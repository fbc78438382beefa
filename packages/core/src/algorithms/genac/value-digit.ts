// The generative critic's answer format and its parser. The critic writes a short reasoning, then
// the value slot, then ends:
//
//   completion := reasoning "=" value <eos>
//   reasoning  := any characters but "="            (e.g. "c1": the scripted carry flag, critic-data.ts)
//   value      := "0" | "1" | … | "10"              (decimal, no sign, no leading zero)
//
// and the value it stands for is value / 10, in [0, 1]. Only the final slot is read: digits inside the
// reasoning ("c1") are never the value. Everything else is malformed, with a reason the metrics can
// count (genac/malformed_rate), and the caller substitutes the fallback (critic-sampling.ts).

/** The character that opens the value slot. */
export const VALUE_SLOT = '=';
/** The largest value digit: value / MAX_DIGIT is the critic's value. */
export const MAX_DIGIT = 10;

/** Why a completion has no value. */
export type MalformedReason =
  /** Cut by the token budget (or a stop) before <eos>: the slot may be unfinished. */
  | 'no-eos'
  /** No "=" at all (an empty completion included). */
  | 'no-slot'
  /** More than one "=": which one is the answer is ambiguous. */
  | 'several-slots'
  /** "=" right before <eos>. */
  | 'empty'
  /** Something other than digits after "=" (a sign, trailing junk, a letter). */
  | 'not-a-number'
  /** "07": the format has one spelling per value. */
  | 'leading-zero'
  /** A number above 10. */
  | 'out-of-range';

export type Critique = { ok: true; reasoning: string; digit: number; value: number } | { ok: false; reasoning: string; reason: MalformedReason };

/**
 * Parses what the critic wrote: `text` is its completion decoded without <eos>, `endedWithEos`
 * whether it ended by sampling <eos> (the only way a completion is complete).
 */
export function parseCritique(text: string, endedWithEos: boolean): Critique {
  const slot = text.indexOf(VALUE_SLOT);
  const reasoning = slot < 0 ? text : text.slice(0, slot);
  if (!endedWithEos) return { ok: false, reasoning, reason: 'no-eos' };
  if (slot < 0) return { ok: false, reasoning, reason: 'no-slot' };
  const value = text.slice(slot + 1);
  if (value.includes(VALUE_SLOT)) return { ok: false, reasoning, reason: 'several-slots' };
  if (value === '') return { ok: false, reasoning, reason: 'empty' };
  if (!/^[0-9]+$/.test(value)) return { ok: false, reasoning, reason: 'not-a-number' };
  if (value.length > 1 && value[0] === '0') return { ok: false, reasoning, reason: 'leading-zero' };
  const digit = Number(value);
  if (digit > MAX_DIGIT) return { ok: false, reasoning, reason: 'out-of-range' };
  return { ok: true, reasoning, digit, value: digit / MAX_DIGIT };
}

/** The completion that states `digit` after `reasoning` (without <eos>, which the encoder appends). */
export function formatCritique(reasoning: string, digit: number): string {
  if (reasoning.includes(VALUE_SLOT)) throw new RangeError(`a critic's reasoning must not contain "${VALUE_SLOT}", got "${reasoning}"`);
  if (!Number.isInteger(digit) || digit < 0 || digit > MAX_DIGIT) throw new RangeError(`a value digit must be an integer in [0, ${MAX_DIGIT}], got ${digit}`);
  return `${reasoning}${VALUE_SLOT}${digit}`;
}

/** The digit a value in [0, 1] is written as: round(10·v). */
export function digitOf(value: number): number {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`a value must be in [0, 1], got ${value}`);
  return Math.round(MAX_DIGIT * value);
}
