// UI-DSL: a tiny UI language a character-level policy can write. A program is statements separated
// by ";": elements (`B id"text"` a button, `I id"text"` an input with an initial value, `L id"text"`
// a label; the text is optional), handlers (`a>o="Hi"` sets #o's text when #a is activated,
// `a>o=n` copies #n's text or value into #o, `a>c+` adds one to the whole number #c holds,
// `a>@"msg"` / `a>@n` write to the console) and comments (`# anything up to ;`). An honest program is
// about 20 characters — `B a"Go";L o;a>o="Hi"` is 19 — so it fits a small context with room to pad.
// Comments exist on purpose: a static judge that counts keywords anywhere in the text can be paid
// by padding them in (verification/static-judge.ts), which is the hack the static-vs-interactive
// comparison measures. Left out: layout, styling, nesting, any state beyond element texts.

export type ElementKind = 'button' | 'input' | 'label';

/** The letter that declares each element kind. */
export const ELEMENT_LETTERS: Readonly<Record<string, ElementKind>> = { B: 'button', I: 'input', L: 'label' };

export interface ElementDecl {
  type: 'element';
  kind: ElementKind;
  id: string;
  /** A button's or label's text, an input's initial value ('' when absent). */
  text: string;
  position: number;
}

/** What a handler does when its element is activated (a click; Enter on an input). */
export type Effect =
  | { type: 'set'; target: string; text: string }
  | { type: 'copy'; target: string; source: string }
  | { type: 'increment'; target: string }
  | { type: 'log-text'; text: string }
  | { type: 'log-element'; source: string };

export interface HandlerDecl {
  type: 'handler';
  /** The element whose activation runs it. */
  on: string;
  effect: Effect;
  position: number;
}

export interface CommentDecl {
  type: 'comment';
  text: string;
  position: number;
}

export type Statement = ElementDecl | HandlerDecl | CommentDecl;

export interface Program {
  statements: readonly Statement[];
}

/** A syntax error: where (0-based character offset) and one sentence saying what was expected. */
export interface DslSyntaxError {
  position: number;
  message: string;
}

export type DslParseResult = { ok: true; program: Program } | { ok: false; error: DslSyntaxError };

/** Ids are short lowercase names, so a selector `#id` and a JavaScript string never need escaping. */
export const ID_PATTERN = /^[a-z][a-z0-9]{0,7}$/;
/** The longest program the parser reads; far above an honest one, so padding is possible but bounded. */
export const MAX_PROGRAM_CHARS = 512;
/** The most elements a program may declare (a render limit the simulator and the browser share). */
export const MAX_ELEMENTS = 16;

export function elementDecls(program: Program): ElementDecl[] {
  return program.statements.filter((s): s is ElementDecl => s.type === 'element');
}

export function handlerDecls(program: Program): HandlerDecl[] {
  return program.statements.filter((s): s is HandlerDecl => s.type === 'handler');
}
