// Glob patterns (`*`, `?`, `[abc]`, `[!a-z]`, `\x`) for find's `-name` and the shell's pathname
// expansion, matched by a hand-written matcher whose work is at most (text length + 1) × (pattern
// length + 1) steps: a star remembers only the last place it could grow from, which is enough
// because every other token matches exactly one character (the wildcard algorithm of Krauss, and of
// Go's path.Match). No regular expression is built from the agent's pattern: a naive glob-to-regex
// translation of one pattern ran over 10 s in Node, the shape of the minimatch advisories.
//
// Left out: `**`, brace expansion `{a,b}` and POSIX classes such as `[[:digit:]]`.

/** Counts a matcher's steps so a caller can bound (and a test can measure) its work. */
export interface WorkCounter {
  steps: number;
}

type GlobToken = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; char: string } | { kind: 'class'; negated: boolean; ranges: [string, string][] };

export interface CompiledGlob {
  readonly source: string;
  readonly tokens: readonly GlobToken[];
}

export interface GlobMatchOptions {
  /** Whether a wildcard may match a leading `.` (find's -name: yes; the shell's expansion: no). */
  dot?: boolean;
  /** Compare without case (find's -iname). */
  caseless?: boolean;
}

/** True when `text` has an unescaped `*`, `?` or `[`, so the shell should expand it. */
export function hasGlobChars(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

/** `text` with every glob character escaped, so it matches only itself. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

export function compileGlob(source: string): CompiledGlob {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '\\' && i + 1 < source.length) tokens.push({ kind: 'char', char: source[++i] });
    else if (c === '[') {
      const parsed = parseClass(source, i);
      if (parsed === undefined) tokens.push({ kind: 'char', char: '[' });
      else {
        tokens.push(parsed.token);
        i = parsed.end;
      }
    } else tokens.push({ kind: 'char', char: c });
  }
  return { source, tokens };
}

/** A bracket expression starting at `source[start] === '['`, or undefined when it never closes (then `[` is literal). */
function parseClass(source: string, start: number): { token: GlobToken; end: number } | undefined {
  let i = start + 1;
  const negated = source[i] === '!' || source[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  let first = true;
  while (i < source.length && (first || source[i] !== ']')) {
    first = false;
    let low = source[i];
    if (low === '\\' && i + 1 < source.length) low = source[++i];
    let high = low;
    if (source[i + 1] === '-' && i + 2 < source.length && source[i + 2] !== ']') {
      high = source[i + 2];
      if (high === '\\' && i + 3 < source.length) high = source[++i + 2];
      i += 2;
    }
    ranges.push([low, high]);
    i++;
  }
  if (i >= source.length) return undefined;
  return { token: { kind: 'class', negated, ranges }, end: i };
}

function matchesOne(token: GlobToken, c: string, caseless: boolean): boolean {
  switch (token.kind) {
    case 'any':
      return true;
    case 'char':
      return caseless ? token.char.toLowerCase() === c.toLowerCase() : token.char === c;
    case 'class': {
      const inRanges = (x: string) => token.ranges.some(([low, high]) => x >= low && x <= high);
      const hit = inRanges(c) || (caseless && (inRanges(c.toLowerCase()) || inRanges(c.toUpperCase())));
      return hit !== token.negated;
    }
    case 'star':
      return false;
  }
}

/** Whether all of `text` matches `glob`. Adds its steps to `counter`; at most (|text| + 1)(|tokens| + 1). */
export function matchGlob(glob: CompiledGlob, text: string, options: GlobMatchOptions = {}, counter?: WorkCounter): boolean {
  const tokens = glob.tokens;
  const caseless = options.caseless ?? false;
  if (!options.dot && text.startsWith('.') && !(tokens[0]?.kind === 'char' && tokens[0].char === '.')) return false;
  let p = 0;
  let t = 0;
  let starP = -1;
  let starT = 0;
  let steps = 0;
  while (t < text.length) {
    steps++;
    const token = tokens[p];
    if (token?.kind === 'star') {
      starP = p++;
      starT = t;
    } else if (token !== undefined && matchesOne(token, text[t], caseless)) {
      p++;
      t++;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else {
      if (counter) counter.steps += steps;
      return false;
    }
  }
  while (tokens[p]?.kind === 'star') p++;
  if (counter) counter.steps += steps + 1;
  return p === tokens.length;
}
