// The UI-DSL parser: every statement kind with its offset, whitespace, and the exact one-sentence
// message at the exact position for each kind of mistake; unknown ids are left to the render.

import { describe, expect, it } from 'vitest';
import { formatSyntaxError, parseProgram } from './parse.ts';
import { MAX_PROGRAM_CHARS } from './syntax.ts';

function errorOf(source: string): string {
  const parsed = parseProgram(source);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(source)} not to parse`);
  return formatSyntaxError(parsed.error);
}

describe('parseProgram', () => {
  it('reads elements, every kind of handler and comments, with positions', () => {
    const parsed = parseProgram('B a"Go";I n;L o"x";# pad;a>o="Hi";a>o=n;a>o+;a>@"m";a>@n');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.program.statements).toEqual([
      { type: 'element', kind: 'button', id: 'a', text: 'Go', position: 0 },
      { type: 'element', kind: 'input', id: 'n', text: '', position: 8 },
      { type: 'element', kind: 'label', id: 'o', text: 'x', position: 12 },
      { type: 'comment', text: ' pad', position: 19 },
      { type: 'handler', on: 'a', effect: { type: 'set', target: 'o', text: 'Hi' }, position: 25 },
      { type: 'handler', on: 'a', effect: { type: 'copy', target: 'o', source: 'n' }, position: 34 },
      { type: 'handler', on: 'a', effect: { type: 'increment', target: 'o' }, position: 40 },
      { type: 'handler', on: 'a', effect: { type: 'log-text', text: 'm' }, position: 45 },
      { type: 'handler', on: 'a', effect: { type: 'log-element', source: 'n' }, position: 52 },
    ]);
  });

  it('allows spaces, newlines and a trailing semicolon between tokens', () => {
    const parsed = parseProgram(' B a "Go" ;\nL o ;\n a > o = "Hi" ;');
    expect(parsed.ok && parsed.program.statements.map((s) => s.type)).toEqual(['element', 'element', 'handler']);
  });

  it('names the position and what was expected on each kind of mistake', () => {
    expect(errorOf('')).toBe('at 0: the program is empty; declare at least one element, e.g. B a"Go".');
    expect(errorOf('X a')).toBe('at 0: "X" is not an element kind; write B (button), I (input) or L (label).');
    expect(errorOf('B "Go"')).toBe('at 2: expected an element id (a lowercase letter first), found "\\"".');
    expect(errorOf('B a"Go')).toBe('at 3: this string is never closed; end it with " on the same line.');
    expect(errorOf('B a"Go" L o')).toBe('at 8: expected ";" between statements, found "L".');
    expect(errorOf('B a;a=o')).toBe('at 5: expected ">" after the handler\'s element "a", found "=".');
    expect(errorOf('B a;a>o')).toBe('at 7: expected "=" (set or copy) or "+" (add one) after the target "o", found the end of the program.');
    expect(errorOf('B a;a>o=1')).toBe('at 8: expected a string or the id of an element to copy from after "=" (a lowercase letter first), found "1".');
    expect(errorOf('B abcdefghi')).toBe('at 2: the id "abcdefghi" is longer than 8 characters.');
    expect(errorOf('B a;!')).toBe('at 4: expected an element (B, I or L), a handler (id>…) or a comment (#), found "!".');
    expect(errorOf(`#${'x'.repeat(MAX_PROGRAM_CHARS)}`)).toBe(`at ${MAX_PROGRAM_CHARS}: the program is longer than ${MAX_PROGRAM_CHARS} characters.`);
  });

  it('leaves unknown ids to the render (syntax only)', () => {
    expect(parseProgram('B a;x>y="z"').ok).toBe(true);
  });
});
