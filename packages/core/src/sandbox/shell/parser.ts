// The shell's grammar: a POSIX sh subset, parsed by recursive descent straight from characters
// (a `$(...)` holds a whole script, so words and scripts are read by one parser). What it reads:
//   script   := and-or ((';' | newline) and-or)* [';']
//   and-or   := pipeline (('&&' | '||') pipeline)*
//   pipeline := command ('|' command)*
//   command  := (word | redirection)+        redirection := [0-2] ('>' | '>>' | '<') word | '2>&1' | '>&2'
//   word     := (plain | \x | '...' | "..." | $(script) | `script`)+     and `#` starts a comment
// Every failure — an unbalanced quote, a dangling `|`, nesting past the limit — is a ParseResult
// with a message (bash's "syntax error near unexpected token" where it applies), never an
// exception: a malformed tool call is an observation. Recursion happens only at `$(`, and the
// nesting limit bounds it. Left out, with a message saying so: subshells `( … )`, background `&`,
// arithmetic `$(( ))`, here-documents `<<`; `$NAME` is not expanded (there are no variables).

import type { ShellLimits } from './limits.ts';

export type WordPart = { kind: 'text'; text: string; quoted: boolean } | { kind: 'substitution'; script: Script; quoted: boolean };
export interface Word {
  parts: WordPart[];
}
export type Redirect = { fd: 0 | 1 | 2; op: '>' | '>>' | '<'; target: Word } | { fd: 1 | 2; op: '>&'; to: 1 | 2 };
export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
}
export interface Pipeline {
  commands: SimpleCommand[];
}
export interface AndOr {
  first: Pipeline;
  rest: { op: '&&' | '||'; pipeline: Pipeline }[];
}
export interface Script {
  items: AndOr[];
}

export type ParseResult = { ok: true; script: Script } | { ok: false; error: string };

export type ParseLimits = Pick<ShellLimits, 'maxInputChars' | 'maxSubstitutionDepth' | 'maxPipelineLength'>;

class SyntaxError_ extends Error {}

const BLANK = new Set([' ', '\t']);
/** Characters that end an unquoted word. */
const WORD_END = new Set([' ', '\t', '\n', ';', '|', '&', '<', '>', '(', ')']);

/** Parses a command line into a script, or says what is wrong with it. */
export function parseCommandLine(source: string, limits: ParseLimits): ParseResult {
  if (source.length > limits.maxInputChars) {
    return { ok: false, error: `the command line is ${source.length} characters long; the limit is ${limits.maxInputChars}` };
  }
  try {
    return { ok: true, script: new Parser(source, limits, 0).parseWhole() };
  } catch (error) {
    if (error instanceof SyntaxError_) return { ok: false, error: error.message };
    throw error;
  }
}

class Parser {
  private at = 0;

  constructor(
    private readonly src: string,
    private readonly limits: ParseLimits,
    private readonly depth: number,
  ) {}

  parseWhole(): Script {
    const script = this.parseScript(false);
    if (this.at < this.src.length) this.unexpected();
    return script;
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.at + offset];
  }

  private startsWith(text: string): boolean {
    return this.src.startsWith(text, this.at);
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (c !== undefined && BLANK.has(c)) this.at++;
      else if (c === '\\' && this.peek(1) === '\n') this.at += 2;
      else if (c === '#') while (this.at < this.src.length && this.peek() !== '\n') this.at++;
      else return;
    }
  }

  private skipBlanksAndNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.peek() !== '\n') return;
      this.at++;
    }
  }

  /** The token at the cursor, for "near unexpected token" messages. */
  private tokenHere(): string {
    if (this.at >= this.src.length) return 'end of input';
    for (const op of ['&&', '||', '>>', ';;']) if (this.startsWith(op)) return `\`${op}'`;
    const c = this.peek() as string;
    return c === '\n' ? 'newline' : `\`${c}'`;
  }

  private unexpected(): never {
    const c = this.peek();
    if (c === '(') throw new SyntaxError_('subshells ( … ) are not supported; run the commands directly');
    if (c === '&' && this.peek(1) === '>') throw new SyntaxError_('&> is not supported; write > FILE 2>&1');
    if (c === '&' && this.peek(1) !== '&') throw new SyntaxError_('background jobs (&) are not supported');
    throw new SyntaxError_(`syntax error near unexpected token ${this.tokenHere()}`);
  }

  /** A script up to the end of input or, inside `$(`, up to the closing parenthesis. */
  private parseScript(inSubstitution: boolean): Script {
    const items: AndOr[] = [];
    this.skipBlanksAndNewlines();
    while (this.at < this.src.length && !(inSubstitution && this.peek() === ')')) {
      items.push(this.parseAndOr());
      this.skipBlanks();
      const c = this.peek();
      if (c === ';' || c === '\n') {
        this.at++;
        this.skipBlanksAndNewlines();
        if (this.peek() === ';') this.unexpected();
      } else if (c !== undefined && !(inSubstitution && c === ')')) this.unexpected();
    }
    return { items };
  }

  private parseAndOr(): AndOr {
    const first = this.parsePipeline();
    const rest: AndOr['rest'] = [];
    for (;;) {
      this.skipBlanks();
      const op = this.startsWith('&&') ? '&&' : this.startsWith('||') ? '||' : undefined;
      if (op === undefined) return { first, rest };
      this.at += 2;
      this.skipBlanksAndNewlines();
      rest.push({ op, pipeline: this.parsePipeline() });
    }
  }

  private parsePipeline(): Pipeline {
    const commands = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.peek() !== '|' || this.startsWith('||')) return { commands };
      this.at++;
      this.skipBlanksAndNewlines();
      commands.push(this.parseCommand());
      if (commands.length > this.limits.maxPipelineLength) {
        throw new SyntaxError_(`a pipeline may have at most ${this.limits.maxPipelineLength} commands`);
      }
    }
  }

  private parseCommand(): SimpleCommand {
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const c = this.peek();
      if (c === undefined) break;
      const redirect = this.parseRedirect();
      if (redirect !== undefined) redirects.push(redirect);
      else if (WORD_END.has(c)) break;
      else words.push(this.parseWord());
    }
    if (words.length === 0 && redirects.length === 0) this.unexpected();
    return { words, redirects };
  }

  private parseRedirect(): Redirect | undefined {
    let fd: 0 | 1 | 2 | undefined;
    let i = this.at;
    const digit = this.src[i];
    if ((digit === '0' || digit === '1' || digit === '2') && (this.src[i + 1] === '>' || this.src[i + 1] === '<')) {
      fd = Number(digit) as 0 | 1 | 2;
      i++;
    }
    const c = this.src[i];
    if (c !== '>' && c !== '<') return undefined;
    if (this.src.startsWith('<<', i)) throw new SyntaxError_('here-documents (<<) are not supported; write the file with echo first');
    if (c === '>' && this.src[i + 1] === '&') {
      const to = this.src[i + 2];
      if ((to !== '1' && to !== '2') || fd === 0) throw new SyntaxError_('only the redirections 2>&1 and >&2 are supported');
      this.at = i + 3;
      return { fd: (fd ?? 1) as 1 | 2, op: '>&', to: Number(to) as 1 | 2 };
    }
    const op = c === '<' ? '<' : this.src[i + 1] === '>' ? '>>' : '>';
    this.at = i + op.length;
    this.skipBlanks();
    const next = this.peek();
    if (next === undefined || WORD_END.has(next)) throw new SyntaxError_(`syntax error: the redirection ${op} needs a file name, not ${this.tokenHere()}`);
    return { fd: fd ?? (op === '<' ? 0 : 1), op, target: this.parseWord() } as Redirect;
  }

  private parseWord(): Word {
    const parts: WordPart[] = [];
    const addText = (text: string, quoted: boolean) => {
      const last = parts[parts.length - 1];
      if (last?.kind === 'text' && last.quoted === quoted) last.text += text;
      else parts.push({ kind: 'text', text, quoted });
    };
    for (;;) {
      const c = this.peek();
      if (c === undefined || WORD_END.has(c)) break;
      if (c === '\\') {
        const next = this.peek(1);
        this.at += 2;
        if (next === undefined) addText('\\', false);
        else if (next !== '\n') addText(next, true);
      } else if (c === "'") {
        const end = this.src.indexOf("'", this.at + 1);
        if (end < 0) throw new SyntaxError_('unterminated single quote');
        addText(this.src.slice(this.at + 1, end), true);
        this.at = end + 1;
      } else if (c === '"') {
        this.parseDoubleQuoted(parts, addText);
      } else if (c === '$' && this.peek(1) === '(') {
        parts.push({ kind: 'substitution', script: this.parseDollarParen(), quoted: false });
      } else if (c === '`') {
        parts.push({ kind: 'substitution', script: this.parseBackticks(), quoted: false });
      } else {
        addText(c, false);
        this.at++;
      }
    }
    return { parts };
  }

  private parseDoubleQuoted(parts: WordPart[], addText: (text: string, quoted: boolean) => void): void {
    this.at++;
    // An empty "" still makes a word, so it must leave a part behind.
    addText('', true);
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new SyntaxError_('unterminated double quote');
      if (c === '"') {
        this.at++;
        return;
      }
      if (c === '\\') {
        const next = this.peek(1);
        if (next === '$' || next === '`' || next === '"' || next === '\\') addText(next, true);
        else if (next !== '\n') addText(`\\${next ?? ''}`, true);
        this.at += 2;
      } else if (c === '$' && this.peek(1) === '(') {
        parts.push({ kind: 'substitution', script: this.parseDollarParen(), quoted: true });
      } else if (c === '`') {
        parts.push({ kind: 'substitution', script: this.parseBackticks(), quoted: true });
      } else {
        addText(c, true);
        this.at++;
      }
    }
  }

  private deeper(): number {
    const depth = this.depth + 1;
    if (depth > this.limits.maxSubstitutionDepth) {
      throw new SyntaxError_(`command substitutions may nest at most ${this.limits.maxSubstitutionDepth} deep`);
    }
    return depth;
  }

  private parseDollarParen(): Script {
    if (this.startsWith('$((')) throw new SyntaxError_('arithmetic expansion $(( … )) is not supported');
    const inner = new Parser(this.src, this.limits, this.deeper());
    inner.at = this.at + 2;
    const script = inner.parseScript(true);
    if (inner.peek() !== ')') throw new SyntaxError_('unterminated command substitution $(');
    this.at = inner.at + 1;
    return script;
  }

  private parseBackticks(): Script {
    let i = this.at + 1;
    let body = '';
    while (i < this.src.length && this.src[i] !== '`') {
      if (this.src[i] === '\\' && (this.src[i + 1] === '`' || this.src[i + 1] === '\\' || this.src[i + 1] === '$')) i++;
      body += this.src[i++];
    }
    if (i >= this.src.length) throw new SyntaxError_('unterminated backquote `');
    this.at = i + 1;
    return new Parser(body, this.limits, this.deeper()).parseWhole();
  }
}
