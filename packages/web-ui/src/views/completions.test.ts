// The completions table's rows: logged records become rollouts, the segments of a compacted
// trajectory (one rollout id at one step) in one row with its trace, in segment order.

import { type Sample, SampleBuilder, sampleRecord } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import type { ReplaySample } from '../engine/api.ts';
import { rolloutsOf } from './completions.ts';

const chars = (text: string) => [...text].map((c) => c.charCodeAt(0));
function act(b: SampleBuilder, text: string, kind: 'action' | 'summary' = 'action') {
  b.addAction(
    chars(text),
    chars(text).map(() => -1),
    text,
    'stop',
    kind,
  );
}
const replay = (s: Sample, step: number): ReplaySample => ({
  ...sampleRecord(s, { phase: 'rl', step }, { pieces: s.tokens.map((id) => String.fromCharCode(id)) }),
  channels: {},
});

describe('completions rows', () => {
  it('puts the segments of one rollout at one step in one row, ordered, each pointing at its own record', () => {
    const ids = { seed: 3, rolloutId: 7, groupId: 0 };
    const first = new SampleBuilder(ids, 'q', chars('q'));
    act(first, 'look');
    first.addObservation(chars('seen'), 'seen');
    act(first, 'sum', 'summary');
    const second = new SampleBuilder(ids, 'q', chars('q'), { carried: chars('sum'), segmentIndex: 1 });
    act(second, 'answer');
    const single = new SampleBuilder({ seed: 4, rolloutId: 8, groupId: 0 }, 'p', chars('p'));
    act(single, '1');
    const records = [
      replay(first.finish({ status: 'truncated' }), 2),
      replay(single.finish({ status: 'completed' }), 2),
      replay(second.finish({ status: 'completed' }), 2),
    ];
    // The same rollout id at the next step is another rollout.
    const later = replay(single.finish({ status: 'completed' }), 3);
    const rows = rolloutsOf([...records, later]);
    expect(rows.map((r) => [r.segments[0].step, r.segments[0].rolloutId, r.segments.length])).toEqual([
      [2, 7, 2],
      [2, 8, 1],
      [3, 8, 1],
    ]);
    const { trace, segments } = rows[0];
    expect([trace.segmentCount, trace.turns]).toEqual([2, 3]);
    expect(trace.segments.map((s) => s.spans.map((span) => span.kind))).toEqual([
      ['prompt', 'action', 'observation', 'summary'],
      ['prompt', 'context', 'action'],
    ]);
    expect(trace.segments.map((s) => segments[s.input].tokens.length)).toEqual([12, 10]);
    expect(trace.segments[0].spans[3].continuedIn).toBe(1);
    expect(trace.segments[1].spans[1].carriedFrom).toBe(0);
  });

  it('keeps a sub-agent context in its rollout row, as a branch whose record the row points at', () => {
    const ids = { seed: 3, rolloutId: 9, groupId: 0 };
    const root = new SampleBuilder(ids, 'q', chars('q'));
    act(root, '<tool_call>delegate x</tool_call>');
    root.addObservation(chars('y'), 'y');
    act(root, 'y');
    const child = new SampleBuilder(ids, 'Sub-task: x', chars('Sub-task: x'), { branch: '0.1', parent: { branch: '0', segmentIndex: 0, turn: 1 } });
    act(child, 'y');
    const rows = rolloutsOf([replay(root.finish({ status: 'completed' }), 1), replay(child.finish({ status: 'completed' }), 1)]);
    expect(rows).toHaveLength(1);
    const { trace, segments } = rows[0];
    expect(trace.segments).toHaveLength(1);
    expect(trace.branches.map((b) => [b.branch, segments[b.segment.input].branch])).toEqual([['0.1', '0.1']]);
    expect(trace.segments[0].spans[1].delegatedTo).toBe('0.1');
  });
});
