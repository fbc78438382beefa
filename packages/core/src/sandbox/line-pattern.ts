// grep's patterns: fixed strings, and a subset of POSIX basic and extended regular expressions that
// is matched by simulating a Thompson NFA (the Pike VM without captures, as in RE2 and Go's regexp),
// so a line costs at most (length + 1) × (program size) steps whatever the pattern. Host JavaScript
// RegExp backtracks — `(a+)+$` against a long run of `a`s takes exponential time — and the shell
// runs in the host where no interpreter limit applies, so no agent pattern ever reaches RegExp.
//
// Supported: literals, `.`, bracket expressions (ranges, `^` negation, `[:alpha:]`-style classes),
// `^` and `$`, `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (m ≤ 255), alternation and groups — in basic
// syntax (grep's default) written `\+ \? \| \( \) \{ \}` as GNU grep does, in extended syntax (-E)
// bare — and the escapes `\w \W \s \S \d \D`. Left out, with an error saying so: back-references
// (they need backtracking), word boundaries and lookaround. A pattern compiles to at most
// MAX_PROGRAM_SIZE instructions, so `(x{255}){255}` is refused rather than expanded.

import type { WorkCounter } from './glob.ts';

export type PatternSyntax = 'fixed' | 'basic' | 'extended';

export interface LinePattern {
  /** Whether some part of `line` matches; adds its steps to `counter`. */
  test(line: string, counter?: WorkCounter): boolean;
}

export const MAX_PROGRAM_SIZE = 5000;
const MAX_REPEAT = 255;
const MAX_NESTING = 64;

type CharTest = { kind: 'char'; char: string } | { kind: 'any' } | { kind: 'set'; negated: boolean; ranges: [string, string][]; named: string[] };
type Node =
  | { t: 'empty' }
  | { t: 'one'; test: CharTest }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'repeat'; node: Node; min: number; max: number }
  | { t: 'bol' }
  | { t: 'eol' };
type Op = { op: 'one'; test: CharTest } | { op: 'split'; x: number; y: number } | { op: 'jmp'; x: number } | { op: 'bol' } | { op: 'eol' } | { op: 'match' };

class PatternError extends Error {}

const NAMED_CLASSES: Record<string, (c: string) => boolean> = {
  alpha: (c) => /\p{L}/u.test(c),
  digit: (c) => c >= '0' && c <= '9',
  alnum: (c) => /[\p{L}\p{N}]/u.test(c),
  upper: (c) => c !== c.toLowerCase(),
  lower: (c) => c !== c.toUpperCase(),
  space: (c) => c === ' ' || (c >= '\t' && c <= '\r'),
  blank: (c) => c === ' ' || c === '\t',
  punct: (c) => c > ' ' && c < '\x7f' && !/[A-Za-z0-9]/.test(c),
  xdigit: (c) => /[0-9A-Fa-f]/.test(c),
  word: (c) => c === '_' || /[\p{L}\p{N}]/u.test(c),
};
const ESCAPE_CLASSES: Record<string, { name: string; negated: boolean }> = {
  w: { name: 'word', negated: false },
  W: { name: 'word', negated: true },
  s: { name: 'space', negated: false },
  S: { name: 'space', negated: true },
  d: { name: 'digit', negated: false },
  D: { name: 'digit', negated: true },
};

/** Compiles a grep pattern, or says in one sentence why it cannot be used. */
export function compileLinePattern(source: string, syntax: PatternSyntax, caseless = false): { ok: true; pattern: LinePattern } | { ok: false; error: string } {
  if (syntax === 'fixed') return { ok: true, pattern: fixedPattern(source, caseless) };
  try {
    const parser = new Parser(source, syntax === 'extended');
    const node = parser.parseAll();
    const program: Op[] = [];
    emit(node, program);
    program.push({ op: 'match' });
    return { ok: true, pattern: new PikeVm(program, caseless) };
  } catch (error) {
    if (error instanceof PatternError) return { ok: false, error: error.message };
    throw error;
  }
}

function fixedPattern(source: string, caseless: boolean): LinePattern {
  const needle = caseless ? source.toLowerCase() : source;
  return {
    test(line, counter) {
      if (counter) counter.steps += line.length + 1;
      return (caseless ? line.toLowerCase() : line).includes(needle);
    },
  };
}

class Parser {
  private at = 0;
  private depth = 0;

  constructor(
    private readonly source: string,
    private readonly extended: boolean,
  ) {}

  parseAll(): Node {
    const node = this.parseAlternation();
    if (this.at < this.source.length) throw new PatternError('unmatched ) in the pattern');
    return node;
  }

  /** Whether the next characters are the operator `op` in this syntax (bare in ERE, backslashed in BRE). */
  private isOp(op: string): boolean {
    if (this.extended) return this.source[this.at] === op;
    return this.source[this.at] === '\\' && this.source[this.at + 1] === op;
  }
  private skipOp(): void {
    this.at += this.extended ? 1 : 2;
  }

  private parseAlternation(): Node {
    const items = [this.parseSequence()];
    while (this.isOp('|')) {
      this.skipOp();
      items.push(this.parseSequence());
    }
    return items.length === 1 ? items[0] : { t: 'alt', items };
  }

  private parseSequence(): Node {
    const items: Node[] = [];
    const start = this.at;
    while (this.at < this.source.length && !this.isOp('|') && !this.isOp(')')) {
      const c = this.source[this.at];
      if (c === '^' && (this.extended || this.at === start)) {
        this.at++;
        items.push({ t: 'bol' });
        continue;
      }
      if (c === '$' && (this.extended || this.atBranchEnd(this.at + 1))) {
        this.at++;
        items.push({ t: 'eol' });
        continue;
      }
      // In basic syntax a star that starts the expression is an ordinary character.
      if (c === '*' && items.length === 0 && !this.extended) {
        this.at++;
        items.push({ t: 'one', test: { kind: 'char', char: '*' } });
        continue;
      }
      let atom = this.parseAtom();
      for (;;) {
        const q = this.parseQuantifier();
        if (q === undefined) break;
        atom = { t: 'repeat', node: atom, min: q.min, max: q.max };
      }
      items.push(atom);
    }
    return items.length === 1 ? items[0] : items.length === 0 ? { t: 'empty' } : { t: 'cat', items };
  }

  private atBranchEnd(i: number): boolean {
    if (i >= this.source.length) return true;
    const next = this.extended ? this.source[i] : this.source.slice(i, i + 2);
    return this.extended ? next === '|' || next === ')' : next === '\\|' || next === '\\)';
  }

  private parseQuantifier(): { min: number; max: number } | undefined {
    const c = this.source[this.at];
    if (c === '*') {
      this.at++;
      return { min: 0, max: Infinity };
    }
    if (this.isOp('+')) {
      this.skipOp();
      return { min: 1, max: Infinity };
    }
    if (this.isOp('?')) {
      this.skipOp();
      return { min: 0, max: 1 };
    }
    if (this.isOp('{')) {
      this.skipOp();
      const close = this.extended ? '}' : '\\}';
      const end = this.source.indexOf(close, this.at);
      if (end < 0) throw new PatternError('unmatched { in the pattern');
      const body = this.source.slice(this.at, end);
      const m = /^(\d+)(,(\d*))?$/.exec(body);
      if (m === null) throw new PatternError(`invalid repetition {${body}} in the pattern`);
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition counts above ${MAX_REPEAT} are not supported`);
      if (max < min) throw new PatternError(`invalid repetition {${body}}: the maximum is below the minimum`);
      this.at = end + close.length;
      return { min, max };
    }
    return undefined;
  }

  private parseAtom(): Node {
    const c = this.source[this.at];
    if (this.isOp('(')) {
      this.skipOp();
      if (++this.depth > MAX_NESTING) throw new PatternError(`groups nested deeper than ${MAX_NESTING} are not supported`);
      const inner = this.parseAlternation();
      if (!this.isOp(')')) throw new PatternError('unmatched ( in the pattern');
      this.skipOp();
      this.depth--;
      return inner;
    }
    if (c === '.') {
      this.at++;
      return { t: 'one', test: { kind: 'any' } };
    }
    if (c === '[') return { t: 'one', test: this.parseBracket() };
    if (c === '\\') {
      const next = this.source[this.at + 1];
      if (next === undefined) throw new PatternError('the pattern ends with a lone backslash');
      this.at += 2;
      if (next >= '1' && next <= '9') throw new PatternError('back-references (\\1 … \\9) are not supported');
      if (next === 'b' || next === 'B' || next === '<' || next === '>') throw new PatternError(`word boundaries (\\${next}) are not supported`);
      const named = ESCAPE_CLASSES[next];
      if (named) return { t: 'one', test: { kind: 'set', negated: named.negated, ranges: [], named: [named.name] } };
      return { t: 'one', test: { kind: 'char', char: next } };
    }
    if (this.extended && (c === '*' || c === '+' || c === '?' || c === '{')) throw new PatternError(`nothing to repeat before ${c} in the pattern`);
    this.at++;
    return { t: 'one', test: { kind: 'char', char: c } };
  }

  private parseBracket(): CharTest {
    let i = this.at + 1;
    const negated = this.source[i] === '^';
    if (negated) i++;
    const ranges: [string, string][] = [];
    const named: string[] = [];
    let first = true;
    while (i < this.source.length && (first || this.source[i] !== ']')) {
      first = false;
      if (this.source.startsWith('[:', i)) {
        const end = this.source.indexOf(':]', i + 2);
        const name = end < 0 ? '' : this.source.slice(i + 2, end);
        if (!(name in NAMED_CLASSES) || name === 'word') throw new PatternError(`unknown character class [:${name}:] in the pattern`);
        named.push(name);
        i = end + 2;
        continue;
      }
      const low = this.source[i];
      if (this.source[i + 1] === '-' && i + 2 < this.source.length && this.source[i + 2] !== ']') {
        const high = this.source[i + 2];
        if (high < low) throw new PatternError(`invalid range ${low}-${high} in the pattern`);
        ranges.push([low, high]);
        i += 3;
      } else {
        ranges.push([low, low]);
        i++;
      }
    }
    if (i >= this.source.length) throw new PatternError('unmatched [ in the pattern');
    this.at = i + 1;
    return { kind: 'set', negated, ranges, named };
  }
}

function push(program: Op[], op: Op): number {
  if (program.length >= MAX_PROGRAM_SIZE)
    throw new PatternError(`the pattern is too large (over ${MAX_PROGRAM_SIZE} NFA states once repetitions are expanded)`);
  program.push(op);
  return program.length - 1;
}

/** Appends `node`'s instructions; control falls through to whatever follows. */
function emit(node: Node, program: Op[]): void {
  switch (node.t) {
    case 'empty':
      return;
    case 'one':
      push(program, { op: 'one', test: node.test });
      return;
    case 'bol':
    case 'eol':
      push(program, { op: node.t });
      return;
    case 'cat':
      for (const item of node.items) emit(item, program);
      return;
    case 'alt': {
      const jumps: number[] = [];
      node.items.forEach((item, k) => {
        if (k === node.items.length - 1) emit(item, program);
        else {
          const split = push(program, { op: 'split', x: 0, y: 0 });
          (program[split] as { x: number }).x = program.length;
          emit(item, program);
          jumps.push(push(program, { op: 'jmp', x: 0 }));
          (program[split] as { y: number }).y = program.length;
        }
      });
      for (const j of jumps) (program[j] as { x: number }).x = program.length;
      return;
    }
    case 'repeat': {
      for (let k = 0; k < node.min; k++) emit(node.node, program);
      if (node.max === Infinity) {
        const split = push(program, { op: 'split', x: program.length + 1, y: 0 });
        emit(node.node, program);
        push(program, { op: 'jmp', x: split });
        (program[split] as { y: number }).y = program.length;
        return;
      }
      const splits: number[] = [];
      for (let k = node.min; k < node.max; k++) {
        splits.push(push(program, { op: 'split', x: program.length + 1, y: 0 }));
        emit(node.node, program);
      }
      for (const s of splits) (program[s] as { y: number }).y = program.length;
      return;
    }
  }
}

/** Runs a program over a line by keeping the set of live states, each visited at most once per position. */
class PikeVm implements LinePattern {
  private readonly marks: Int32Array;
  private generation = 0;

  constructor(
    private readonly program: readonly Op[],
    private readonly caseless: boolean,
  ) {
    this.marks = new Int32Array(program.length);
  }

  test(line: string, counter?: WorkCounter): boolean {
    let steps = 0;
    let current: number[] = [];
    let next: number[] = [];
    const stack: number[] = [];
    // Adds the ε-closure of `pc` at position `pos` to `into`; true when it reaches a match.
    const add = (pc: number, pos: number, into: number[]): boolean => {
      stack.push(pc);
      while (stack.length > 0) {
        const s = stack.pop() as number;
        if (this.marks[s] === this.generation) continue;
        this.marks[s] = this.generation;
        steps++;
        const op = this.program[s];
        switch (op.op) {
          case 'match':
            stack.length = 0;
            return true;
          case 'jmp':
            stack.push(op.x);
            break;
          case 'split':
            stack.push(op.y, op.x);
            break;
          case 'bol':
            if (pos === 0) stack.push(s + 1);
            break;
          case 'eol':
            if (pos === line.length) stack.push(s + 1);
            break;
          case 'one':
            into.push(s);
            break;
        }
      }
      return false;
    };
    const finish = (found: boolean) => {
      if (counter) counter.steps += steps;
      return found;
    };
    this.generation++;
    if (add(0, 0, current)) return finish(true);
    for (let pos = 0; pos < line.length; pos++) {
      const c = line[pos];
      this.generation++;
      next.length = 0;
      for (const s of current) {
        steps++;
        if (this.matches((this.program[s] as { test: CharTest }).test, c) && add(s + 1, pos + 1, next)) return finish(true);
      }
      if (add(0, pos + 1, next)) return finish(true);
      [current, next] = [next, current];
    }
    return finish(false);
  }

  private matches(test: CharTest, c: string): boolean {
    if (test.kind === 'any') return true;
    if (test.kind === 'char') return this.caseless ? test.char.toLowerCase() === c.toLowerCase() : test.char === c;
    const hit = (x: string) => test.ranges.some(([low, high]) => x >= low && x <= high) || test.named.some((name) => NAMED_CLASSES[name](x));
    const found = hit(c) || (this.caseless && (hit(c.toLowerCase()) || hit(c.toUpperCase())));
    return found !== test.negated;
  }
}
