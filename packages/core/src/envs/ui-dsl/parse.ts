// The UI-DSL parser (syntax.ts has the grammar): a hand-written recursive descent over characters,
// one statement at a time, stopping at the first error with its offset and one sentence saying
// what was expected there — the message a policy's sample, a test or a person reads. It checks
// syntax only; which ids exist is the render servers' business (an unknown id is a runtime error,
// as it would be in the page), so the parser and both servers never disagree on what is valid.

import { type DslParseResult, type DslSyntaxError, type Effect, ELEMENT_LETTERS, ID_PATTERN, MAX_PROGRAM_CHARS, type Statement } from './syntax.ts';

class ParseFailure extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\t';
const isIdStart = (c: string | undefined) => c !== undefined && c >= 'a' && c <= 'z';
const isIdChar = (c: string | undefined) => isIdStart(c) || (c !== undefined && c >= '0' && c <= '9');

/** "at 7: expected …" — the one line a parse error prints as. */
export function formatSyntaxError(error: DslSyntaxError): string {
  return `at ${error.position}: ${error.message}`;
}

export function parseProgram(source: string): DslParseResult {
  if (source.length > MAX_PROGRAM_CHARS)
    return { ok: false, error: { position: MAX_PROGRAM_CHARS, message: `the program is longer than ${MAX_PROGRAM_CHARS} characters.` } };
  try {
    return { ok: true, program: { statements: new Parser(source).statements() } };
  } catch (e) {
    if (e instanceof ParseFailure) return { ok: false, error: { position: e.position, message: e.message } };
    throw e;
  }
}

class Parser {
  private at = 0;

  constructor(private readonly text: string) {}

  statements(): Statement[] {
    const out: Statement[] = [];
    this.skipSpace();
    if (this.at >= this.text.length) throw new ParseFailure(0, 'the program is empty; declare at least one element, e.g. B a"Go".');
    while (this.at < this.text.length) {
      if (this.peek() === ';') {
        this.at++;
        this.skipSpace();
        continue;
      }
      out.push(this.statement());
      this.skipSpace();
      if (this.at < this.text.length && this.peek() !== ';') this.fail(`expected ";" between statements, found ${this.shown()}.`);
    }
    return out;
  }

  private statement(): Statement {
    const position = this.at;
    const c = this.peek();
    if (c === '#') {
      const end = this.text.indexOf(';', position);
      const stop = end < 0 ? this.text.length : end;
      this.at = stop;
      return { type: 'comment', text: this.text.slice(position + 1, stop), position };
    }
    if (c !== undefined && c >= 'A' && c <= 'Z') {
      const kind = ELEMENT_LETTERS[c];
      if (!kind) this.fail(`"${c}" is not an element kind; write B (button), I (input) or L (label).`);
      this.at++;
      this.skipSpace();
      const id = this.id('an element id');
      this.skipSpace();
      const text = this.peek() === '"' ? this.string() : '';
      return { type: 'element', kind, id, text, position };
    }
    if (isIdStart(c)) {
      const on = this.id('an id');
      this.skipSpace();
      this.expect('>', `">" after the handler's element "${on}"`);
      this.skipSpace();
      return { type: 'handler', on, effect: this.effect(), position };
    }
    return this.fail(`expected an element (B, I or L), a handler (id>…) or a comment (#), found ${this.shown()}.`);
  }

  private effect(): Effect {
    if (this.peek() === '@') {
      this.at++;
      this.skipSpace();
      if (this.peek() === '"') return { type: 'log-text', text: this.string() };
      return { type: 'log-element', source: this.id('a string or an id to log after "@"') };
    }
    const target = this.id('the id of the element the handler changes, or "@" to log');
    this.skipSpace();
    if (this.peek() === '+') {
      this.at++;
      return { type: 'increment', target };
    }
    this.expect('=', `"=" (set or copy) or "+" (add one) after the target "${target}"`);
    this.skipSpace();
    if (this.peek() === '"') return { type: 'set', target, text: this.string() };
    return { type: 'copy', target, source: this.id('a string or the id of an element to copy from after "="') };
  }

  private id(what: string): string {
    const start = this.at;
    if (!isIdStart(this.peek())) this.fail(`expected ${what} (a lowercase letter first), found ${this.shown()}.`);
    while (isIdChar(this.peek())) this.at++;
    const id = this.text.slice(start, this.at);
    if (!ID_PATTERN.test(id)) throw new ParseFailure(start, `the id "${id}" is longer than 8 characters.`);
    return id;
  }

  private string(): string {
    const start = this.at;
    this.at++;
    while (this.at < this.text.length && this.text[this.at] !== '"' && this.text[this.at] !== '\n') this.at++;
    if (this.peek() !== '"') throw new ParseFailure(start, 'this string is never closed; end it with " on the same line.');
    this.at++;
    return this.text.slice(start + 1, this.at - 1);
  }

  private expect(char: string, what: string): void {
    if (this.peek() !== char) this.fail(`expected ${what}, found ${this.shown()}.`);
    this.at++;
  }

  private skipSpace(): void {
    while (isSpace(this.peek())) this.at++;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private shown(): string {
    const c = this.peek();
    return c === undefined ? 'the end of the program' : JSON.stringify(c);
  }

  private fail(message: string): never {
    throw new ParseFailure(this.at, message);
  }
}
