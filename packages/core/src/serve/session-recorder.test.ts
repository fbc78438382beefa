// The black-box session recorder and the samples made of its sessions: a prompt that extends the
// last prompt + output continues the trajectory (the agent's text between is an observation), one
// that does not starts a new branch, a rewarded session takes no more turns, a batch waits for
// complete groups and takes them in reward order; the policy gate keeps sampler calls and updates
// apart and forgets the cache after an update.

import { describe, expect, it } from 'vitest';
import { KIND_CODE } from '../envs/sample.ts';
import type { GeneratedRow } from '../model/generate.ts';
import { samplesOfSessions } from '../train/external-trajectories.ts';
import { PolicyGate } from './policy-gate.ts';
import { type RecordedTurn, SessionError, SessionRecorder } from './session-recorder.ts';

const turn = (promptIds: number[], outputIds: number[], policyVersion = 0): RecordedTurn => ({
  promptIds,
  outputIds,
  logprobs: outputIds.map(() => -0.5),
  text: outputIds.join(''),
  ending: 'eos',
  policyVersion,
  spansUpdate: false,
});

describe('SessionRecorder', () => {
  it('continues a trajectory whose prompt extends the last prompt + output, and branches on drift', () => {
    const r = new SessionRecorder();
    expect(r.record('s', turn([1, 2], [3]))).toEqual({ branch: 0, turn: 0, drift: false });
    expect(r.record('s', turn([1, 2, 3, 7, 8], [4, 5]))).toEqual({ branch: 0, turn: 1, drift: false });
    // An edited history: the output 4 5 is not what follows.
    expect(r.record('s', turn([1, 2, 3, 7, 8, 9], [6]))).toEqual({ branch: 1, turn: 0, drift: true });
    r.reward('s', 1);
    const batch = r.takeBatch(1, 1);
    expect(batch?.[0][0].branches.map((b) => b.length)).toEqual([2, 1]);
    const samples = samplesOfSessions(batch ?? [], (ids) => ids.join(','));
    expect(samples).toHaveLength(2);
    const [first] = samples;
    expect(first.tokens).toEqual([1, 2, 3, 7, 8, 4, 5]);
    expect(Array.from(first.tokenKinds)).toEqual([
      KIND_CODE.prompt,
      KIND_CODE.prompt,
      KIND_CODE.action,
      KIND_CODE.observation,
      KIND_CODE.observation,
      KIND_CODE.action,
      KIND_CODE.action,
    ]);
    expect(Array.from(first.rolloutLogprobs)).toEqual([0, 0, -0.5, 0, 0, -0.5, -0.5]);
    expect(first.stepRewards).toEqual([{ position: 6, value: 1 }]);
    expect(first.done).toBe(true);
    expect(samples.map((s) => [s.rolloutId, s.groupId, s.meta.branch])).toEqual([
      [0, 0, 0],
      [1, 0, 1],
    ]);
  });

  it('refuses a turn or a second reward for a rewarded session, and a reward for an unknown one', () => {
    const r = new SessionRecorder();
    r.record('s', turn([1], [2]));
    r.reward('s', 0);
    expect(() => r.record('s', turn([1, 2], [3]))).toThrow(SessionError);
    expect(() => r.reward('s', 1)).toThrow(/already has its reward/);
    expect(() => r.reward('nobody', 1)).toThrow(/no session nobody/);
  });

  it('waits for complete groups, takes the first ones, and keeps the rest', () => {
    const r = new SessionRecorder();
    for (const [id, group] of [
      ['a1', 'A'],
      ['b1', 'B'],
      ['a2', 'A'],
      ['c1', 'C'],
    ] as const) {
      r.record(id, turn([1], [2]));
      r.reward(id, 1, group);
    }
    expect(r.takeBatch(2, 2)).toBeUndefined();
    r.record('b2', turn([1], [3]));
    r.reward('b2', 0, 'B');
    const batch = r.takeBatch(2, 2);
    expect(batch?.map((g) => g.map((s) => s.id))).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    expect(r.waiting).toBe(1);
  });

  it('groups sessions by their first prompt when the client names no group', () => {
    const r = new SessionRecorder();
    for (const [id, prompt] of [
      ['x', [5]],
      ['y', [6]],
      ['z', [5]],
    ] as const) {
      r.record(id, turn([...prompt], [2]));
      r.reward(id, 1);
    }
    expect(r.takeBatch(1, 2)?.[0].map((s) => s.id)).toEqual(['x', 'z']);
  });
});

describe('PolicyGate', () => {
  it('runs an update between sampler calls, then forgets the cache and counts the version', async () => {
    const events: string[] = [];
    const sampler = {
      async generate(): Promise<GeneratedRow[]> {
        events.push('generate start');
        await new Promise((r) => setTimeout(r, 5));
        events.push('generate end');
        return [];
      },
      forgetCache: () => void events.push('forget'),
    };
    const gate = new PolicyGate(sampler);
    const options = { temperature: 1, topK: 0, seed: 0, stream: 0 };
    const call = gate.generate([[1]], [1], options);
    const update = gate.update(async () => void events.push('update'));
    const after = gate.generate([[1]], [1], options);
    await Promise.all([call, update, after]);
    expect(events).toEqual(['generate start', 'generate end', 'update', 'forget', 'generate start', 'generate end']);
    expect(gate.version).toBe(1);
  });
});
