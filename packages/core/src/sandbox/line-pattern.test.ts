import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WorkCounter } from './glob.ts';
import { compileLinePattern, type PatternSyntax } from './line-pattern.ts';

function compiled(source: string, syntax: PatternSyntax = 'basic', caseless = false) {
  const result = compileLinePattern(source, syntax, caseless);
  if (!result.ok) throw new Error(result.error);
  return result.pattern;
}
const test = (source: string, line: string, syntax: PatternSyntax = 'basic', caseless = false) => compiled(source, syntax, caseless).test(line);

/** Random extended patterns over a small alphabet, valid in both ERE and JavaScript. */
const ere: fc.Arbitrary<string> = fc.letrec((tie) => ({
  atom: fc.oneof({ maxDepth: 3, depthIdentifier: 'ere' }, fc.constantFrom('a', 'b', '.', '[ab]', '[^a]'), tie('group')),
  group: fc.tuple(tie('alt')).map(([inner]) => `(${inner})`),
  piece: fc.tuple(tie('atom'), fc.constantFrom('', '*', '+', '?', '{1,2}')).map(([a, q]) => `${a}${q}`),
  seq: fc.array(tie('piece'), { minLength: 1, maxLength: 4 }).map((p) => (p as string[]).join('')),
  alt: fc.array(tie('seq'), { minLength: 1, maxLength: 3 }).map((p) => (p as string[]).join('|')),
})).alt as fc.Arbitrary<string>;

describe('grep line patterns', () => {
  it('matches fixed strings literally, with or without case', () => {
    expect(test('a.b', 'xa.by', 'fixed')).toBe(true);
    expect(test('a.b', 'axb', 'fixed')).toBe(false);
    expect(test('EXPECTED', 'the expected value', 'fixed', true)).toBe(true);
  });

  it('reads basic syntax as GNU grep does: \\| \\( \\) \\+ are operators, bare ones are literal', () => {
    expect(test('foo\\|bar', 'a bar')).toBe(true);
    expect(test('foo|bar', 'a bar')).toBe(false);
    expect(test('foo|bar', 'foo|bar')).toBe(true);
    expect(test('\\(ab\\)\\+c', 'xababc')).toBe(true);
    expect(test('a+', 'a+')).toBe(true);
    expect(test('a+', 'aa')).toBe(false);
    expect(test('*a', 'x*a')).toBe(true);
    expect(test('a\\{2\\}', 'xaay')).toBe(true);
    expect(test('a\\{3\\}', 'xaay')).toBe(false);
  });

  it('reads extended syntax with bare operators', () => {
    expect(test('foo|bar', 'a bar', 'extended')).toBe(true);
    expect(test('^(ab)+$', 'abab', 'extended')).toBe(true);
    expect(test('^(ab)+$', 'ababa', 'extended')).toBe(false);
    expect(test('colou?r', 'color', 'extended')).toBe(true);
    expect(test('x{2,3}', 'axxb', 'extended')).toBe(true);
  });

  it('anchors, classes and escapes', () => {
    expect(test('^def ', 'def f():')).toBe(true);
    expect(test('^def ', ' def f():')).toBe(false);
    expect(test('1$', 'x = 1')).toBe(true);
    expect(test('[0-9][0-9]', 'a42')).toBe(true);
    expect(test('[^a-z]', 'abc')).toBe(false);
    expect(test('[[:digit:]]', 'a1')).toBe(true);
    expect(test('[[:space:]]x', 'a\tx')).toBe(true);
    expect(test('\\w\\s\\d', 'a 1')).toBe(true);
    expect(test('a\\.b', 'axb')).toBe(false);
    expect(test('HELLO', 'hello world', 'basic', true)).toBe(true);
    expect(test('[A-Z]', 'abc', 'basic', true)).toBe(true);
  });

  it('agrees with JavaScript RegExp on random extended patterns', () => {
    fc.assert(
      fc.property(ere, fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 8 }), (pattern, chars) => {
        const line = chars.join('');
        expect(test(pattern, line, 'extended')).toBe(new RegExp(pattern).test(line));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what it cannot match in linear time, with a reason', () => {
    const refusal = (source: string, syntax: PatternSyntax = 'basic') => {
      const r = compileLinePattern(source, syntax);
      return r.ok ? 'compiled' : r.error;
    };
    expect(refusal('\\(a\\)\\1')).toMatch(/back-references/);
    expect(refusal('\\bword\\b')).toMatch(/word boundaries/);
    expect(refusal('(x{255}){255}', 'extended')).toMatch(/too large/);
    expect(refusal('a{300}', 'extended')).toMatch(/above 255/);
    expect(refusal('[abc')).toMatch(/unmatched \[/);
    expect(refusal('(ab', 'extended')).toMatch(/unmatched \(/);
    expect(refusal('a\\')).toMatch(/lone backslash/);
    expect(refusal('[[:bogus:]]')).toMatch(/unknown character class/);
  });

  it('bounds the work of a catastrophic pattern by line length × program size', () => {
    // (a+)+$ and (a|a)*b take exponential time in a backtracking engine on a run of a's that does not match.
    for (const pattern of ['(a+)+$', '(a|a)*b', '(a*)*b', '((a*)*)*c']) {
      const line = `${'a'.repeat(20000)}!`;
      const counter: WorkCounter = { steps: 0 };
      expect(compiled(pattern, 'extended').test(line, counter)).toBe(false);
      expect(counter.steps).toBeLessThan(2 * (line.length + 1) * 20);
    }
  });
});
