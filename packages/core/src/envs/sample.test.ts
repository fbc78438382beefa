// Sample v2: every token has a kind, the masks are derived from the kinds, and a trajectory cut into
// several contexts (compaction, a branch) trains each sampled token exactly once.

import { describe, expect, it } from 'vitest';
import { toTrainingRows } from '../train/rows.ts';
import { STATUS_RULES } from './rollout-status.ts';
import {
  actionTokenCount,
  checkSampleMasks,
  failedSample,
  KIND_CODE,
  maskOfKinds,
  packSamples,
  type Sample,
  SampleBuilder,
  TOKEN_KINDS,
  TRAINABLE_KINDS,
} from './sample.ts';

const ids = { seed: 7, rolloutId: 3, groupId: 1 };
const kindsOf = (s: Sample) => [...s.tokenKinds].map((code) => TOKEN_KINDS[code]);
const lp = (n: number) => new Array(n).fill(-0.25);

describe('Sample v2: token kinds', () => {
  it('records who wrote each token and derives the action and observation masks from it', () => {
    const b = new SampleBuilder(ids, 'Q:', [1, 2]);
    b.addAction([10, 11], lp(2), 'ab', 'stop');
    b.addObservation([20], 'tool', 'observation');
    b.addAction([12], lp(1), 'c', 'stop');
    b.addObservation([21, 22], 'user says', 'user');
    b.addAction([13], lp(1), 'd', 'stop');
    b.addObservation([23], 'fake', 'fabricated');
    b.addAction([14, 0], lp(2), 'summary', 'eos', 'summary');
    const s = b.finish({ status: 'completed' });
    expect(kindsOf(s)).toEqual(['prompt', 'prompt', 'action', 'action', 'observation', 'action', 'user', 'user', 'action', 'fabricated', 'summary', 'summary']);
    // A summary the policy wrote trains like an action (CompactionRL); everything the environment wrote does not.
    expect([...s.actionMask]).toEqual([0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1]);
    expect([...s.observationMask]).toEqual([0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0]);
    expect([...s.rolloutLogprobs].map((x, t) => (s.actionMask[t] ? x : 0))).toEqual([...s.rolloutLogprobs]);
    expect(actionTokenCount(s)).toBe(6);
    expect(() => checkSampleMasks(s)).not.toThrow();
  });

  it('a compacted trajectory: what the next context carries over is context there, mask 0, so each sampled token trains once', () => {
    // Segment 0: prompt, an action, a tool result, then the summary the policy writes when the context fills.
    const first = new SampleBuilder(ids, 'Q:', [1, 2]);
    first.addAction([10, 11], lp(2), 'step', 'stop');
    first.addObservation([20, 21], 'result', 'observation');
    first.addAction([30, 31, 32], lp(3), 'summary', 'stop', 'summary');
    const s0 = first.finish({ status: 'truncated' });
    // Segment 1 opens from [task prompt, summary, the most recent step]: all carried, none retrained.
    const carried = [30, 31, 32, 10, 11, 20, 21];
    const second = new SampleBuilder(ids, 'Q:', [1, 2], { carried, segmentIndex: 1 });
    second.addAction([40, 0], lp(2), 'answer', 'eos');
    const s1 = second.finish({ status: 'completed' });
    expect(s1.segmentIndex).toBe(1);
    expect(s1.responseStart).toBe(2 + carried.length);
    expect(kindsOf(s1)).toEqual([...new Array(2).fill('prompt'), ...new Array(7).fill('context'), 'action', 'action']);
    expect([...s1.actionMask]).toEqual([...new Array(9).fill(0), 1, 1]);
    expect([...s1.observationMask].every((m) => m === 0)).toBe(true);
    expect([...s1.rolloutLogprobs.subarray(0, 9)].every((x) => x === 0)).toBe(true);

    // Every token the policy sampled in the trajectory trains in exactly one sample, also after the
    // trainer's shift into training rows.
    const sampled = [10, 11, 30, 31, 32, 40, 0];
    const trainedIds = [s0, s1].flatMap((s) => s.tokens.filter((_, t) => s.actionMask[t]));
    expect(trainedIds.sort()).toEqual([...sampled].sort());
    const packed = packSamples([s0, s1], 11, 0);
    const rows = toTrainingRows(packed, 12, 0);
    const trainedTargets = [...rows.targets].filter((_, i) => rows.actionMask[i]);
    expect(trainedTargets.sort()).toEqual([...sampled].sort());
  });

  it('a branch shares its parent prefix as context and trains only its own continuation', () => {
    const parent = new SampleBuilder(ids, 'Q:', [1]);
    parent.addAction([10], lp(1), 'a', 'stop');
    parent.addObservation([20], 'o', 'observation');
    parent.addAction([11, 0], lp(2), 'b', 'eos');
    const p = parent.finish({ status: 'completed' });
    // The branch forks after the observation: the parent's first action and the observation are context.
    const branch = new SampleBuilder({ ...ids, rolloutId: 4 }, 'Q:', [1], { carried: p.tokens.slice(1, 3) });
    branch.addAction([12, 0], lp(2), 'c', 'eos');
    const q = branch.finish({ status: 'completed' });
    expect(kindsOf(q)).toEqual(['prompt', 'context', 'context', 'action', 'action']);
    expect(q.tokens.slice(0, 3)).toEqual(p.tokens.slice(0, 3));
    expect(actionTokenCount(p) + actionTokenCount(q)).toBe(3 + 2);
  });

  it('maskOfKinds and the trainable kinds', () => {
    expect(TRAINABLE_KINDS).toEqual(['action', 'summary']);
    const codes = Uint8Array.from(['prompt', 'action', 'context', 'summary', 'user'] as const, (k) => KIND_CODE[k]);
    expect([...maskOfKinds(codes, TRAINABLE_KINDS)]).toEqual([0, 1, 0, 1, 0]);
  });

  it('packSamples refuses a mask that disagrees with its kinds, naming the sample and token', () => {
    const b = new SampleBuilder(ids, 'Q:', [1, 2]);
    b.addAction([10, 0], lp(2), 'a', 'eos');
    const good = b.finish({ status: 'completed' });
    // Hand-setting the mask on a prompt token would train a token the policy never sampled.
    const bad: Sample = { ...good, actionMask: Uint8Array.from([1, 0, 1, 1]) };
    expect(() => packSamples([good, bad], 4, 0)).toThrow('sample 1: the masks at token 0 disagree with its kind "prompt"');
    expect(() => packSamples([{ ...good, tokenKinds: new Uint8Array(3) }], 4, 0)).toThrow('sample 0: tokenKinds has 3 entries for 4 tokens');
  });

  it('a failed rollout is a sample with its failure and nothing to train; a sampler failure makes it aborted', () => {
    const s = failedSample(ids, { source: 'environment', message: 'reset(7) failed: boom' });
    expect(s.failure).toEqual({ source: 'environment', message: 'reset(7) failed: boom' });
    expect(s).toMatchObject({ status: 'failed', done: false, truncated: true });
    expect(s.tokens).toEqual([]);
    expect(actionTokenCount(s)).toBe(0);
    const b = new SampleBuilder(ids, 'Q:', [1]);
    b.addAction([10], lp(1), 'a', 'stop');
    const aborted = b.finish({ status: 'truncated', failure: { source: 'sampler', message: 'aborted' } });
    expect(aborted.failure).toEqual({ source: 'sampler', message: 'aborted' });
    expect(aborted.status).toBe('aborted');
    expect(failedSample(ids, { source: 'verifier', message: 'x' }).status).toBe('failed');
  });

  it('statuses give packSamples its terminal flag: only a completed rollout is a true terminal', () => {
    const finish = (status: 'completed' | 'truncated') => {
      const b = new SampleBuilder(ids, 'Q:', [1]);
      b.addAction([10], lp(1), 'a', 'eos');
      return b.finish({ status });
    };
    const [done, cut] = [finish('completed'), finish('truncated')];
    expect([done.done, done.truncated, cut.done, cut.truncated]).toEqual([true, false, false, true]);
    expect([...packSamples([done, cut], 4, 0).terminal]).toEqual([STATUS_RULES.completed.terminal ? 1 : 0, 0]);
    expect(STATUS_RULES.completed.terminal).toBe(true);
    expect(Object.entries(STATUS_RULES).flatMap(([status, rule]) => (rule.trains ? [status] : []))).toEqual(['completed', 'truncated']);
    // rl.truncation = "terminal": the cut rollout's reward is final too.
    expect([...packSamples([done, cut], 4, 0, { truncatedTerminal: true }).terminal]).toEqual([1, 1]);
  });

  it('a compacted segment is neither done nor truncated, whatever its rollout’s status: terminal in the batch (bootstrap 0), with its tokensAfter', () => {
    const segment = (status: 'completed' | 'truncated') => {
      const b = new SampleBuilder(ids, 'Q:', [1]);
      b.addAction([10, 11], lp(2), 'ab', 'stop', 'summary');
      return b.finish({ status, compacted: true, tokensAfter: 5 });
    };
    const [ofDone, ofCut] = [segment('completed'), segment('truncated')];
    for (const s of [ofDone, ofCut]) expect([s.done, s.truncated, s.compacted, s.tokensAfter]).toEqual([false, false, true, 5]);
    // Without the flag a cut rollout's sample would bootstrap (terminal 0) and get the factor both.
    expect([...packSamples([ofDone, ofCut], 4, 0).terminal]).toEqual([1, 1]);
    expect([...packSamples([ofCut], 4, 0).tokensAfter]).toEqual([5]);
    expect(() => new SampleBuilder(ids, 'Q:', [1]).finish({ status: 'completed', tokensAfter: -1 })).toThrow(/tokensAfter must be a non-negative integer/);
  });

  it('a second observation after one action (the runner’s <summary> after a tool result) extends the turn’s text', () => {
    const b = new SampleBuilder(ids, 'Q:', [1]);
    b.addAction([10], lp(1), 'a', 'stop');
    b.addObservation([20], '=1;', 'observation');
    b.addObservation([21], '<summary>', 'user');
    expect(b.turnsSoFar()).toEqual([{ action: 'a', ending: 'stop', observation: '=1;<summary>' }]);
  });
});
