import { describe, expect, it } from 'vitest';
import { OutputSink, WorkBudget, WorkLimitExceeded } from './limits.ts';

describe('shell limits', () => {
  it('keeps output up to its cap and marks what it dropped', () => {
    const sink = new OutputSink(10);
    sink.write('12345');
    expect(sink.full).toBe(false);
    sink.write('6789abcdef');
    sink.write('more');
    expect(sink.full).toBe(true);
    expect(sink.text()).toBe('123456789a\n[output truncated: 9 more bytes past the 10-byte limit]\n');
  });

  it('truncates between characters, never inside one', () => {
    const sink = new OutputSink(7);
    sink.write('ab😀😀');
    expect(sink.text().startsWith('ab😀\n')).toBe(true);
    expect(sink.text()).toContain('4 more bytes');
  });

  it('keeps everything that fits, without a marker', () => {
    const sink = new OutputSink(100);
    sink.write('line\n');
    expect(sink.text()).toBe('line\n');
  });

  it('stops a call that spends its work budget', () => {
    const budget = new WorkBudget(100);
    budget.charge(60);
    expect(() => budget.charge(60)).toThrow(WorkLimitExceeded);
  });
});
