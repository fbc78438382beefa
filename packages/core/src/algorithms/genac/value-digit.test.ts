import { describe, expect, it } from 'vitest';
import { digitOf, formatCritique, parseCritique } from './value-digit.ts';

describe('parseCritique', () => {
  it('reads the final slot, never a digit in the reasoning', () => {
    expect(parseCritique('c1=7', true)).toEqual({ ok: true, reasoning: 'c1', digit: 7, value: 0.7 });
    expect(parseCritique('c0=0', true)).toEqual({ ok: true, reasoning: 'c0', digit: 0, value: 0 });
    expect(parseCritique('=10', true)).toEqual({ ok: true, reasoning: '', digit: 10, value: 1 });
    expect(parseCritique('12+34c1=3', true)).toMatchObject({ ok: true, digit: 3 });
  });

  it.each([
    ['c1=7', false, 'no-eos'],
    ['', true, 'no-slot'],
    ['c1', true, 'no-slot'],
    ['7', true, 'no-slot'],
    ['c1=7=8', true, 'several-slots'],
    ['c1=', true, 'empty'],
    ['c1=-1', true, 'not-a-number'],
    ['c1=7c', true, 'not-a-number'],
    ['c1=7|', true, 'not-a-number'],
    ['c1=c', true, 'not-a-number'],
    ['c1=07', true, 'leading-zero'],
    ['c1=00', true, 'leading-zero'],
    ['c1=11', true, 'out-of-range'],
    ['c1=78', true, 'out-of-range'],
  ] as const)('%j (eos: %s) is malformed: %s', (text, eos, reason) => {
    const parsed = parseCritique(text, eos);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toBe(reason);
  });

  it('keeps the reasoning of a malformed completion for the views', () => {
    expect(parseCritique('c1=x', true).reasoning).toBe('c1');
    expect(parseCritique('c1c1', false).reasoning).toBe('c1c1');
  });

  it('round-trips every digit it formats', () => {
    for (let d = 0; d <= 10; d++) expect(parseCritique(formatCritique('c0', d), true)).toMatchObject({ ok: true, digit: d, value: d / 10 });
  });

  it('refuses to format what it would not parse', () => {
    expect(() => formatCritique('a=b', 3)).toThrow(/must not contain/);
    expect(() => formatCritique('c0', 11)).toThrow(/integer in \[0, 10\]/);
    expect(() => formatCritique('c0', 2.5)).toThrow(/integer/);
  });

  it('writes a value as round(10·v)', () => {
    expect([0, 0.04, 0.05, 0.34, 0.66, 1].map(digitOf)).toEqual([0, 0, 1, 3, 7, 10]);
    expect(() => digitOf(1.2)).toThrow(/\[0, 1\]/);
  });
});
