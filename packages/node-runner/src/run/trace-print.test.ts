// The terminal trace printer: environment text cut to the width with a count, a broken tool call
// said in words, and colour marks (tool name, dimmed observation, compaction) that disappear when
// colour is off.

import { SampleBuilder, segmentOfSample, traceOf } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { cutToWidth, traceLines } from './trace-print.ts';

const chars = (text: string) => [...text].map((c) => c.charCodeAt(0));
const decode = (id: number) => String.fromCharCode(id);

function trace() {
  const b = new SampleBuilder({ seed: 1, rolloutId: 2, groupId: 0 }, 'go', chars('go'));
  const action = (text: string, ending: 'stop' | 'length') =>
    b.addAction(
      chars(text),
      chars(text).map(() => -1),
      text,
      ending,
    );
  action('<tool_call>sh ls</tool_call>', 'stop');
  b.addObservation(chars('a.txt\nb.txt'), 'a.txt\nb.txt');
  action('<tool_call>sh cat a', 'length');
  return traceOf([segmentOfSample(b.finish({ status: 'truncated' }), decode)]);
}

describe('trace printing', () => {
  it('cuts text to the room it has, saying how many characters went', () => {
    expect(cutToWidth('short', 20)).toBe('short');
    expect(cutToWidth('x'.repeat(50), 20)).toBe(`${'x'.repeat(7)}… (+43 chars)`);
    expect(cutToWidth('x'.repeat(50), 20)).toHaveLength(20);
    expect(cutToWidth('a\nb', 10)).toBe('a⏎b');
  });

  it('prints each turn plainly, with the broken call and the cut-off turn in words', () => {
    expect(traceLines(trace(), { width: 80, color: false })).toEqual([
      '✗ rollout 2 · seed 1 · 2 turns · truncated · reward 0.00',
      '  prompt          go',
      '  turn 1          <tool_call>sh ls</tool_call>',
      '    tool call     [sh ls]',
      '    observation   a.txt⏎b.txt',
      '  turn 2          <tool_call>sh cat a',
      '    tool call     [sh cat a]',
      "                  ✗ the tool call was not closed with </tool_call> before the turn's token budget ran out",
      '                  (cut off: the turn ran out of tokens)',
      '  → truncated · reward 0.00',
    ]);
  });

  it('a failed rollout says where it failed and why', () => {
    const b = new SampleBuilder({ seed: 1, rolloutId: 3, groupId: 0 }, 'go', chars('go'));
    b.addAction(chars('x'), [-1], 'x', 'stop');
    const failed = traceOf([segmentOfSample(b.finish({ status: 'truncated', failure: { source: 'environment', message: 'step failed: boom' } }), decode)]);
    expect(traceLines(failed, { width: 80, color: false })).toEqual([
      '✗ rollout 3 · seed 1 · 1 turn · failed · reward 0.00',
      '  prompt          go',
      '  turn 1          x',
      '  failure         environment: step failed: boom',
      '  → failed · reward 0.00',
    ]);
  });

  it('prints a sub-agent indented under the delegate call that started it', () => {
    const root = new SampleBuilder({ seed: 1, rolloutId: 2, groupId: 0 }, 'go', chars('go'));
    const call = '<tool_call>delegate add 1 2</tool_call>';
    root.addAction(
      chars(call),
      chars(call).map(() => -1),
      call,
      'stop',
    );
    root.addObservation(chars('3'), '3');
    root.addAction(chars('3'), [-1], '3', 'eos');
    const child = new SampleBuilder({ seed: 9, rolloutId: 2, groupId: 0 }, 'Sub-task: add 1 2', chars('Sub-task: add 1 2'), {
      branch: '0.1',
      parent: { branch: '0', segmentIndex: 0, turn: 1 },
    });
    child.addAction(chars('3'), [-1], '3', 'eos');
    const traced = traceOf([root.finish({ status: 'completed' }), child.finish({ status: 'completed' })].map((s) => segmentOfSample(s, decode)));
    const lines = traceLines(traced, { width: 80, color: false });
    const at = lines.findIndex((l) => l.includes('[delegate add 1 2]'));
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '      ── sub-agent 0.1 · 18 tokens · completed ──',
      '      prompt          Sub-task: add 1 2',
      '      turn 1          3',
    ]);
    expect(lines[at + 4]).toBe('    observation   3');
  });

  it('in colour the tool name is highlighted and the observation dimmed', () => {
    const lines = traceLines(trace(), { width: 80, color: true });
    expect(lines[3]).toBe('    tool call     \x1b[1;36msh\x1b[0m\x1b[1m ls\x1b[0m');
    expect(lines[4]).toBe('    observation   \x1b[2ma.txt⏎b.txt\x1b[0m');
  });
});
