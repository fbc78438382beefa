// A rollout tree as the views read it: samples.jsonl records carry a sub-agent's branch and parent
// (a root's record has neither, as before), and the trace view puts each sub-agent under the
// delegate call that started it, from Samples and from records alike.

import { describe, expect, it } from 'vitest';
import { sampleRecord } from '../metrics/jsonl.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { collectRollouts, type EpisodeRequest } from './episode.ts';
import { byRollout } from './rollouts.ts';
import { delegatePolicy, delegatingEnv } from './testing/delegating-env.ts';
import { scriptedSampler } from './testing/scripted-sampler.ts';
import { segmentOfRecord, segmentOfSample, traceOf } from './trace-view.ts';

const tokenizer = new CharTokenizer();

async function tree(child: 'adder' | 'delegating', maxDepth = 1) {
  const requests: EpisodeRequest[] = [{ env: delegatingEnv(child), seed: 7, rolloutId: 3, groupId: 0 }];
  const sampler = scriptedSampler(tokenizer, delegatePolicy({ firstChildTool: child === 'delegating' ? 'delegate' : 'add' }));
  return collectRollouts(requests, tokenizer, sampler, { contextLength: 200, maxNewTokens: 40, maxTurns: 4, subAgents: { maxDepth } });
}

describe('sub-agent views', () => {
  it('samples.jsonl records a sub-agent branch and parent, and none on the root', async () => {
    const [root, child] = (await tree('adder')).map((s) => sampleRecord(s, { phase: 'rl', step: 1 }));
    expect(root.branch).toBeUndefined();
    expect(root.parent).toBeUndefined();
    expect(child).toMatchObject({ rolloutId: 3, branch: '0.1', parent: { branch: '0', segmentIndex: 0, turn: 1 } });
    // Through JSON and back, as the file holds it.
    expect(JSON.parse(JSON.stringify(child))).toMatchObject({ branch: '0.1', parent: { branch: '0', segmentIndex: 0, turn: 1 } });
  });

  it('the trace puts each sub-agent under its delegate call, from Samples and from records', async () => {
    const samples = await tree('delegating', 2);
    const decode = (id: number) => tokenizer.decode([id]);
    const fromSamples = traceOf(samples.map((s) => segmentOfSample(s, decode)));
    const fromRecords = traceOf(samples.map((s) => segmentOfRecord(sampleRecord(s, { phase: 'rl', step: 1 }, { pieces: s.tokens.map(decode) }))));
    for (const trace of [fromSamples, fromRecords]) {
      expect(trace.segments).toHaveLength(1);
      expect(trace.branches.map((b) => [b.branch, b.parent.branch])).toEqual([
        ['0.1', '0'],
        ['0.1.1', '0.1'],
      ]);
      const [call] = trace.segments[0].spans.filter((s) => s.kind === 'action');
      expect(call).toMatchObject({ delegatedTo: '0.1', toolCall: { name: 'delegate' } });
      const [childCall] = trace.branches[0].segment.spans.filter((s) => s.kind === 'action');
      expect(childCall.delegatedTo).toBe('0.1.1');
      // The sub-agent's answer in the parent is environment text, greyed.
      const observation = trace.segments[0].spans.find((s) => s.kind === 'observation');
      expect(observation?.masked).toBe(true);
      expect(trace.turns).toBe(2);
      expect(trace.branches[0].turns).toBe(2);
    }
    // The rollout is still one group of contexts, the root first.
    expect(byRollout(samples, (s) => s)).toHaveLength(1);
  });

  it('a tree with no root context is refused in words', async () => {
    const [, child] = await tree('adder');
    expect(() => traceOf([segmentOfSample(child, (id) => tokenizer.decode([id]))])).toThrow('rollout 3 has sub-agent contexts but no root context');
  });
});
