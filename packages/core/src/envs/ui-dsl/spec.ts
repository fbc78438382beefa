// What a UI-DSL episode asks for: a spec drawn from a seed, the prompt that states it, and the honest
// program that meets it. Four kinds, each one behaviour a click or an Enter can show:
//   set    a button that, clicked, puts a fixed message in a label
//   copy   an input, a button, a label: the click copies the input's value into the label
//   count  a button that adds one to a label starting at a given number
//   echo   an input whose Enter copies its value into a label with a given first text
// Training and held-out specs use short words (two to four letters) and counters from 0 to 9; the
// out-of-distribution set uses longer words, none of them trained, and two-digit counters. What
// the interactive judge types into an input and how often it clicks also come from the seed but
// are not in the prompt, so a program cannot be fitted to them.

import { mixSeed } from '../seeds.ts';

export type UiSpecKind = 'set' | 'copy' | 'count' | 'echo';
export const UI_SPEC_KINDS: readonly UiSpecKind[] = ['set', 'copy', 'count', 'echo'];

export interface UiSpec {
  kind: UiSpecKind;
  /** The button's text (empty for echo, which has no button). */
  button: string;
  /** set: the message; echo: the label's first text; else empty. */
  message: string;
  /** count: the label's first number; else 0. */
  start: number;
  /** What the judge types into the input (copy, echo). */
  fill: string;
  /** How many times the judge clicks (count); 1 otherwise. */
  clicks: number;
}

export type UiSpecRange = 'train' | 'ood';

const TRAIN_WORDS = ['Go', 'Ok', 'Hi', 'Yes', 'No', 'Run', 'Add', 'Up', 'Send', 'Save', 'Done', 'Next', 'Back', 'Play', 'Stop', 'Open'];
const OOD_WORDS = ['Submit', 'Cancel', 'Hello', 'Search', 'Refresh', 'Confirm', 'Welcome', 'Continue'];
/** Inputs the judge types; never a spec word, so copying the prompt cannot stand in for copying the input. */
const FILL_WORDS = ['abc', 'tea', 'moon', 'pixel', 'x1', 'kite', 'zoo', 'rust'];

const KIND_SALT = 0x0d51_0001;
const BUTTON_SALT = 0x0d51_0002;
const MESSAGE_SALT = 0x0d51_0003;
const START_SALT = 0x0d51_0004;
const FILL_SALT = 0x0d51_0005;
const CLICKS_SALT = 0x0d51_0006;

const pick = <T>(seed: number, salt: number, items: readonly T[]): T => items[mixSeed(seed, salt) % items.length];

/** The spec of `seed` in a range, redrawn (salted) while its prompt is in `excluded` (the held-out set). */
export function uiSpec(seed: number, range: UiSpecRange, excluded?: ReadonlySet<string>): UiSpec {
  let s = seed;
  for (let attempt = 0; attempt < 1000; attempt++) {
    const spec = drawSpec(s, range);
    if (!excluded?.has(specKey(spec))) return spec;
    s = mixSeed(s, attempt);
  }
  throw new RangeError(`uiSpec: no spec outside the held-out set after 1000 draws from seed ${seed}; the held-out set is too large`);
}

function drawSpec(seed: number, range: UiSpecRange): UiSpec {
  const words = range === 'train' ? TRAIN_WORDS : OOD_WORDS;
  const kind = pick(seed, KIND_SALT, UI_SPEC_KINDS);
  const button = kind === 'echo' ? '' : pick(seed, BUTTON_SALT, words);
  const message =
    kind === 'set' || kind === 'echo'
      ? pick(
          seed,
          MESSAGE_SALT,
          words.filter((w) => w !== button),
        )
      : '';
  const start = kind === 'count' ? (range === 'train' ? mixSeed(seed, START_SALT) % 10 : 10 + (mixSeed(seed, START_SALT) % 90)) : 0;
  const fill = kind === 'copy' || kind === 'echo' ? pick(seed, FILL_SALT, FILL_WORDS) : '';
  const clicks = kind === 'count' ? 2 + (mixSeed(seed, CLICKS_SALT) % 2) : 1;
  return { kind, button, message, start, fill, clicks };
}

/** The prompt: one line naming the behaviour and its texts, then a newline the program follows. */
export function specPrompt(spec: UiSpec): string {
  if (spec.kind === 'set') return `button "${spec.button}" sets label to "${spec.message}"\n`;
  if (spec.kind === 'copy') return `button "${spec.button}" copies input to label\n`;
  if (spec.kind === 'count') return `button "${spec.button}" counts label up from ${spec.start}\n`;
  return `Enter in input copies it to label "${spec.message}"\n`;
}

/** Two specs with one key ask for the same program (the judge's hidden choices aside). */
export function specKey(spec: UiSpec): string {
  return specPrompt(spec);
}

/** The honest program: 17–31 characters, the elements in the order the prompt names them. */
export function honestProgram(spec: UiSpec): string {
  if (spec.kind === 'set') return `B a"${spec.button}";L o;a>o="${spec.message}"`;
  if (spec.kind === 'copy') return `I n;B a"${spec.button}";L o;a>o=n`;
  if (spec.kind === 'count') return `B a"${spec.button}";L c"${spec.start}";a>c+`;
  return `I n;L o"${spec.message}";n>o=n`;
}

/**
 * One spec per distinct prompt of a range (the judge's hidden fill word and clicks left at their
 * simplest): what the task's size checks and its longest prompt and program are computed from.
 */
export function everyUiSpec(range: UiSpecRange): UiSpec[] {
  const words = range === 'train' ? TRAIN_WORDS : OOD_WORDS;
  const starts = range === 'train' ? [...Array(10).keys()] : Array.from({ length: 90 }, (_, i) => 10 + i);
  const base = { button: '', message: '', start: 0, fill: '', clicks: 1 };
  const specs: UiSpec[] = [];
  for (const button of words) {
    for (const message of words) if (message !== button) specs.push({ ...base, kind: 'set', button, message });
    specs.push({ ...base, kind: 'copy', button });
    for (const start of starts) specs.push({ ...base, kind: 'count', button, start });
    specs.push({ ...base, kind: 'echo', message: button });
  }
  return specs;
}

/** How many distinct prompts a range has (the held-out set may take at most half of training's). */
export function specCount(range: UiSpecRange): number {
  return everyUiSpec(range).length;
}

/** `count` distinct specs from seeds seedOf(0), seedOf(1), …, skipping repeats. */
export function distinctUiSpecs(count: number, range: UiSpecRange, seedOf: (i: number) => number): { seeds: number[]; specs: UiSpec[] } {
  const max = specCount(range);
  if (count > max) throw new RangeError(`distinctUiSpecs: asked for ${count} distinct specs, but the ${range} range has only ${max}`);
  const seen = new Set<string>();
  const seeds: number[] = [];
  const specs: UiSpec[] = [];
  for (let i = 0; specs.length < count; i++) {
    if (i > 100 * max) throw new RangeError(`distinctUiSpecs: found only ${specs.length} of ${count} distinct specs in ${i} draws`);
    const seed = seedOf(i);
    const spec = drawSpec(seed, range);
    const key = specKey(spec);
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push(seed);
    specs.push(spec);
  }
  return { seeds, specs };
}
