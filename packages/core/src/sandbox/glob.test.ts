import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, escapeGlob, hasGlobChars, matchGlob, type WorkCounter } from './glob.ts';

const matches = (pattern: string, text: string, options = {}) => matchGlob(compileGlob(pattern), text, options);

/** A slow but obviously right reference: try every split at every star. */
function reference(pattern: string, text: string): boolean {
  if (pattern === '') return text === '';
  const [head, rest] = [pattern[0], pattern.slice(1)];
  if (head === '*') return [...Array(text.length + 1).keys()].some((k) => reference(rest, text.slice(k)));
  if (text === '') return false;
  return (head === '?' || head === text[0]) && reference(rest, text.slice(1));
}

describe('glob matcher', () => {
  it('matches stars, question marks, classes and escapes', () => {
    expect(matches('*.txt', 'expected.txt')).toBe(true);
    expect(matches('*.txt', 'expected.txt.bak')).toBe(false);
    expect(matches('a?c', 'abc')).toBe(true);
    expect(matches('a?c', 'ac')).toBe(false);
    expect(matches('[ab]*', 'banana')).toBe(true);
    expect(matches('[!ab]*', 'banana')).toBe(false);
    expect(matches('[a-c]x', 'bx')).toBe(true);
    expect(matches('[]]', ']')).toBe(true);
    expect(matches('\\*', '*')).toBe(true);
    expect(matches('\\*', 'a')).toBe(false);
    expect(matches('[abc', '[abc')).toBe(true);
    expect(matches('*', '')).toBe(true);
    expect(matches('', '')).toBe(true);
  });

  it('leaves a leading dot to an explicit dot unless dot matching is on', () => {
    expect(matches('*', '.eval')).toBe(false);
    expect(matches('.*', '.eval')).toBe(true);
    expect(matches('*', '.eval', { dot: true })).toBe(true);
  });

  it('compares without case when asked', () => {
    expect(matches('*.TXT', 'a.txt')).toBe(false);
    expect(matches('*.TXT', 'a.txt', { caseless: true })).toBe(true);
    expect(matches('[A-C]', 'b', { caseless: true })).toBe(true);
  });

  it('agrees with an exhaustive reference on stars and question marks', () => {
    const alphabet = fc.constantFrom('a', 'b', '*', '?');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(fc.constantFrom('a', 'b'), { maxLength: 10 }), (p, t) => {
        expect(matches(p.join(''), t.join(''))).toBe(reference(p.join(''), t.join('')));
      }),
    );
  });

  it('does at most (text + 1) × (pattern + 1) steps on the pattern that stalls regex translations', () => {
    const pattern = `${'*a'.repeat(30)}*b`;
    const text = 'a'.repeat(5000);
    const counter: WorkCounter = { steps: 0 };
    expect(matchGlob(compileGlob(pattern), text, {}, counter)).toBe(false);
    expect(counter.steps).toBeLessThanOrEqual((text.length + 1) * (compileGlob(pattern).tokens.length + 1));
  });

  it('finds and escapes glob characters', () => {
    expect(hasGlobChars('src/*.ts')).toBe(true);
    expect(hasGlobChars('plain')).toBe(false);
    expect(hasGlobChars('\\*')).toBe(false);
    expect(matches(escapeGlob('a*[b]?'), 'a*[b]?')).toBe(true);
    expect(matches(escapeGlob('a*'), 'abc')).toBe(false);
  });
});
