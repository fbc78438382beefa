// The trace model on hand-built Samples: a single-turn answer, a tool-using episode with user and
// fabricated turns, a two-segment compacted trajectory, broken tool calls, and the same traces read
// back from samples.jsonl records.

import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../metrics/jsonl.ts';
import type { Sample } from './sample.ts';
import { SampleBuilder } from './sample.ts';
import { groupSegments, isSingleTurn, segmentOfRecord, segmentOfSample, statusLabel, type TraceSpan, toolCallOf, traceOf } from './trace-view.ts';

// A character codec with three specials, enough to write tool calls and end an episode.
const SPECIAL: Record<string, number> = { '<tool_call>': 1000, '</tool_call>': 1001, '<eos>': 1002 };
const NAME_OF = new Map(Object.entries(SPECIAL).map(([name, id]) => [id, name]));
const decode = (id: number) => NAME_OF.get(id) ?? String.fromCharCode(id);
const encode = (text: string): number[] =>
  text.split(/(<\/?tool_call>|<eos>)/).flatMap((part) => (part in SPECIAL ? [SPECIAL[part]] : [...part].map((c) => c.charCodeAt(0))));
const lp = (ids: readonly number[]) => ids.map(() => -0.5);

function act(b: SampleBuilder, text: string, ending: 'eos' | 'stop' | 'length', kind: 'action' | 'summary' = 'action') {
  const ids = encode(ending === 'eos' ? `${text}<eos>` : text);
  b.addAction(ids, lp(ids), text, ending, kind);
}
function observe(b: SampleBuilder, text: string, kind: 'observation' | 'user' | 'fabricated' = 'observation') {
  b.addObservation(encode(text), text, kind);
}
const ids = { seed: 11, rolloutId: 4, groupId: 2 };
const view = (s: Sample) => segmentOfSample(s, decode);
const brief = (spans: readonly TraceSpan[]) => spans.map((s) => [s.kind, s.text, s.turn ?? null, s.masked]);

/**
 * Segment 0 of a compacted trajectory: a tool call, its result, then the summary written when the
 * context filled. As the runner finishes it: the rollout's status and reward, marked compacted.
 */
function firstSegment(): Sample {
  const b = new SampleBuilder(ids, 'fix f', encode('fix f'));
  act(b, '<tool_call>sh cat f.js</tool_call>', 'stop');
  observe(b, 'return 1');
  act(b, 'f returns 1', 'eos', 'summary');
  b.addReward(1);
  return b.finish({ status: 'completed', compacted: true, tokensAfter: 44 });
}
/** Segment 1: the prompt, then the summary and the last step carried over, then the answer. */
function secondSegment(): Sample {
  const carried = encode('f returns 1<eos>return 1');
  const b = new SampleBuilder(ids, 'fix f', encode('fix f'), { carried, segmentIndex: 1 });
  act(b, '<tool_call>sh echo 2 > f.js</tool_call>', 'stop');
  observe(b, 'ok');
  act(b, 'done', 'eos');
  b.addReward(1);
  return b.finish({ status: 'completed' });
}

describe('trace view', () => {
  it('a single-turn answer is a prompt and one action, with no tool call', () => {
    const b = new SampleBuilder(ids, '12+3=', encode('12+3='));
    act(b, '15', 'eos');
    b.addReward(1);
    const trace = traceOf([view(b.finish({ status: 'completed' }))]);
    expect(brief(trace.segments[0].spans)).toEqual([
      ['prompt', '12+3=', null, true],
      ['action', '15<eos>', 1, false],
    ]);
    expect(trace.segments[0].spans[1].toolCall).toBeUndefined();
    expect(trace.segments[0].spans[1].ending).toBe('eos');
    expect([trace.turns, trace.reward, trace.status, trace.segmentCount]).toEqual([1, 1, 'completed', 1]);
    expect(isSingleTurn(trace)).toBe(true);
  });

  it('a tool-using episode: each action with its call, then the observation, user or fabricated turn that followed, greyed', () => {
    const b = new SampleBuilder(ids, 'task', encode('task'));
    act(b, '<tool_call>sh ls -a</tool_call>', 'stop');
    observe(b, 'f.js');
    act(b, '<tool_call>read f.js</tool_call>', 'stop');
    observe(b, 'be brief', 'user');
    act(b, '<tool_call>sh cat .eval/f.js</tool_call>', 'stop');
    observe(b, 'permission denied', 'fabricated');
    act(b, 'ok', 'eos');
    const trace = traceOf([view(b.finish({ status: 'completed' }))]);
    const spans = trace.segments[0].spans;
    expect(brief(spans)).toEqual([
      ['prompt', 'task', null, true],
      ['action', '<tool_call>sh ls -a</tool_call>', 1, false],
      ['observation', 'f.js', 1, true],
      ['action', '<tool_call>read f.js</tool_call>', 2, false],
      ['user', 'be brief', 2, true],
      ['action', '<tool_call>sh cat .eval/f.js</tool_call>', 3, false],
      ['fabricated', 'permission denied', 3, true],
      ['action', 'ok<eos>', 4, false],
    ]);
    expect(spans.map((s) => s.toolCall)).toEqual([
      undefined,
      { name: 'sh', args: 'ls -a' },
      undefined,
      { name: 'read', args: 'f.js' },
      undefined,
      { name: 'sh', args: 'cat .eval/f.js' },
      undefined,
      undefined,
    ]);
    // Spans tile the context: every token in exactly one span, in order.
    expect(spans.map((s) => [s.start, s.end])).toEqual([
      [0, 4],
      [4, 14],
      [14, 18],
      [18, 29],
      [29, 37],
      [37, 56],
      [56, 73],
      [73, 76],
    ]);
    expect(trace.turns).toBe(4);
    expect(isSingleTurn(trace)).toBe(false);
  });

  it('a two-segment compacted trajectory: the summary continues in segment 1, whose carried context comes from segment 0', () => {
    // Given out of order, as a log may hold them: the trace orders segments by index.
    const trace = traceOf([view(secondSegment()), view(firstSegment())]);
    expect(trace.segments.map((s) => [s.index, s.input, s.status, s.reward, statusLabel(s)])).toEqual([
      [0, 1, 'completed', 1, 'compacted'],
      [1, 0, 'completed', 1, 'completed'],
    ]);
    const [first, second] = trace.segments;
    expect(brief(first.spans)).toEqual([
      ['prompt', 'fix f', null, true],
      ['action', '<tool_call>sh cat f.js</tool_call>', 1, false],
      ['observation', 'return 1', 1, true],
      ['summary', 'f returns 1<eos>', 2, false],
    ]);
    expect(first.spans[3].continuedIn).toBe(1);
    // Turns count on across the boundary; the carried tokens are context, no turn of their own.
    expect(brief(second.spans)).toEqual([
      ['prompt', 'fix f', null, true],
      ['context', 'f returns 1<eos>return 1', null, true],
      ['action', '<tool_call>sh echo 2 > f.js</tool_call>', 3, false],
      ['observation', 'ok', 3, true],
      ['action', 'done<eos>', 4, false],
    ]);
    expect(second.spans[1].carriedFrom).toBe(0);
    expect(second.spans[2].toolCall).toEqual({ name: 'sh', args: 'echo 2 > f.js' });
    // The rollout's reward once, not once per segment that carries it.
    expect([trace.turns, trace.reward, trace.status, trace.done, trace.segmentCount]).toEqual([4, 1, 'completed', true, 2]);
    expect(isSingleTurn(trace)).toBe(false);
  });

  it('a segment logged without the one before it still counts the segments the trajectory had', () => {
    const trace = traceOf([view(secondSegment())]);
    expect([trace.segments.length, trace.segmentCount]).toEqual([1, 2]);
    expect(trace.segments[0].spans[1].carriedFrom).toBe(0);
    // A summary whose next segment was not given links nowhere.
    expect(traceOf([view(firstSegment())]).segments[0].spans[3].continuedIn).toBeUndefined();
  });

  it('broken tool calls keep the name they wrote and say why they cannot run', () => {
    expect(toolCallOf('<tool_call>sh cat f', 'length')).toEqual({
      name: 'sh',
      args: 'cat f',
      problem: "the tool call was not closed with </tool_call> before the turn's token budget ran out",
    });
    expect(toolCallOf('cat f</tool_call>', 'stop')).toEqual({
      name: '',
      args: '',
      problem: '</tool_call> without <tool_call> before it; write <tool_call>name arguments</tool_call>',
    });
    expect(toolCallOf('<tool_call>ls</tool_call>', 'stop')).toEqual({ name: 'ls', args: '' });
    expect(toolCallOf('42', 'eos')).toBeUndefined();
  });

  it('a samples.jsonl record gives the same spans, status and segments; an older one knows only whether it completed', () => {
    const segments = [firstSegment(), secondSegment()];
    const fromSamples = traceOf(segments.map(view));
    const records = segments.map((s) => sampleRecord(s, { phase: 'rl', step: 3 }, { pieces: s.tokens.map(decode) }));
    // Given out of order: the records' segment indices put them back.
    const fromRecords = traceOf([records[1], records[0]].map(segmentOfRecord));
    expect(fromRecords.segments.map((s) => s.spans)).toEqual(fromSamples.segments.map((s) => s.spans));
    expect([fromRecords.status, statusLabel(fromRecords)]).toEqual(['completed', 'completed']);
    const cut = traceOf([segmentOfRecord(records[0])]);
    expect(statusLabel(cut)).toBe(statusLabel(traceOf([view(segments[0])])));
    const { status: _status, ...older } = records[0];
    const old = traceOf([segmentOfRecord(older)]);
    expect([old.status, statusLabel(old)]).toEqual([undefined, 'not completed']);
  });

  it('an older record without kinds falls back to its roles; one without pieces shows token ids', () => {
    const b = new SampleBuilder(ids, 'q', encode('q'));
    act(b, '<tool_call>sh ls</tool_call>', 'stop');
    observe(b, 'x');
    const record = sampleRecord(b.finish({ status: 'truncated' }), { phase: 'rl', step: 0 });
    const old = { ...record };
    delete old.kinds;
    const trace = traceOf([segmentOfRecord(old)]);
    expect(trace.segments[0].spans.map((s) => [s.kind, s.text.slice(0, 12)])).toEqual([
      ['prompt', '#113'],
      ['action', '#1000#115#10'],
      ['observation', '#120'],
    ]);
    expect(() => segmentOfRecord({ ...record, kinds: `pz${(record.kinds ?? '').slice(2)}` })).toThrow(
      'token 1 of rollout 4 has kind letter "z", which is not a token kind',
    );
  });

  it('two actions with no token between them read as one span, its call taken from the joined text', () => {
    const b = new SampleBuilder(ids, 'q', encode('q'));
    act(b, '<tool_call>sh ', 'length');
    b.addObservation([], '');
    act(b, 'ls</tool_call>', 'stop');
    const [segment] = traceOf([view(b.finish({ status: 'truncated' }))]).segments;
    expect(brief(segment.spans)).toEqual([
      ['prompt', 'q', null, true],
      ['action', '<tool_call>sh ls</tool_call>', 1, false],
    ]);
    // The Sample's two turns cannot be told apart in the tokens, so neither turn's ending is claimed.
    expect(segment.spans[1].ending).toBeUndefined();
    expect(segment.spans[1].toolCall).toEqual({ name: 'sh', args: 'ls' });
  });

  it('refuses segments of two rollouts, or two segments with one index', () => {
    const other = view({ ...secondSegment(), rolloutId: 5 });
    expect(() => traceOf([view(firstSegment()), other])).toThrow('segments of rollouts 4 and 5 cannot form one trace');
    expect(() => traceOf([view(secondSegment()), view(secondSegment())])).toThrow('rollout 4 has two segments with index 1');
    expect(() => traceOf([])).toThrow('a trace needs at least one segment');
  });

  it('groups segments by a key, groups in order of first appearance', () => {
    const items = [
      { id: 2, k: 'a' },
      { id: 1, k: 'b' },
      { id: 2, k: 'c' },
    ];
    expect(groupSegments(items, (x) => x.id).map((g) => g.map((x) => x.k))).toEqual([['a', 'c'], ['b']]);
  });
});
