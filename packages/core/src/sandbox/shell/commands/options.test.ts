import { describe, expect, it } from 'vitest';
import { countValue, parseOptions } from './options.ts';

const spec = { flags: 'rni', valued: 'e', long: { recursive: 'r', regexp: 'e' } };

describe('option parsing', () => {
  it('reads clustered flags, attached and separate values, long names and --', () => {
    const parsed = parseOptions('grep', ['-rn', 'x', '-efoo', '--recursive', '--regexp=bar', '--', '-i'], spec);
    expect(parsed).toEqual({ ok: true, options: { flags: new Set(['r', 'n']), values: new Map([['e', 'bar']]), operands: ['x', '-i'] } });
    expect(parseOptions('grep', ['-e', 'pat', '-'], spec)).toMatchObject({ ok: true, options: { values: new Map([['e', 'pat']]), operands: ['-'] } });
  });

  it('names an unknown or incomplete option as GNU tools do', () => {
    expect(parseOptions('grep', ['-z'], spec)).toEqual({ ok: false, error: "grep: invalid option -- 'z'" });
    expect(parseOptions('grep', ['--zap'], spec)).toEqual({ ok: false, error: "grep: unrecognized option '--zap'" });
    expect(parseOptions('grep', ['-e'], spec)).toEqual({ ok: false, error: "grep: option requires an argument -- 'e'" });
  });

  it('reads counts', () => {
    expect(countValue('12')).toBe(12);
    expect(countValue('-1')).toBeUndefined();
    expect(countValue('1e3')).toBeUndefined();
  });
});
