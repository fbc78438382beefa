// Sub-agents through the real episode runner and character tokenizer, with a scripted policy: the
// tree's shape and its sampler keys, every sampled token trained exactly once (in the context that
// sampled it), the reward on every context, the depth and per-rollout limits and a crashing
// sub-agent as error observations, a parent waiting on its child not holding up sampler calls, and
// the tree counted as one rollout and one group member.

import { describe, expect, it } from 'vitest';
import { rolloutsOfRows } from '../algorithms/group-baseline.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { branchOf, samplerSegmentWord } from './branches.ts';
import { SUB_AGENT_HEADER } from './delegate.ts';
import { type BatchSampler, collectRollouts, type EpisodeRequest, type RolloutLimits, type RowKey } from './episode.ts';
import { byRollout, finalSegments } from './rollouts.ts';
import { actionTokenCount, KIND_CODE, packSamples, type Sample, tokenRewards } from './sample.ts';
import { type ChildKind, delegatedProblem, delegatePolicy, delegatingEnv } from './testing/delegating-env.ts';
import { scriptedSampler } from './testing/scripted-sampler.ts';

const tokenizer = new CharTokenizer();
const limits: RolloutLimits = { contextLength: 200, maxNewTokens: 40, maxTurns: 4 };

/** The scripted sampler, recording each call's row keys and how many tokens it sampled. */
function recording(script: ReturnType<typeof delegatePolicy>): BatchSampler & { keys: RowKey[][]; sampled: number } {
  const inner = scriptedSampler(tokenizer, script);
  const sampler = {
    keys: [] as RowKey[][],
    sampled: 0,
    async generate(...args: Parameters<BatchSampler['generate']>) {
      sampler.keys.push([...(args[3] ?? [])]);
      const out = await inner.generate(...args);
      for (const g of out) sampler.sampled += g.ids.length;
      return out;
    },
  };
  return sampler;
}

const requests = (n: number, child: ChildKind = 'adder'): EpisodeRequest[] =>
  Array.from({ length: n }, (_, i) => ({ env: delegatingEnv(child), seed: 40 + i, rolloutId: i, groupId: Math.floor(i / 2) }));

const observationsOf = (s: Sample) => s.turns.map((t) => t.observation ?? '');

describe('sub-agents', () => {
  it('a delegate call becomes a child context: the tree, its keys, and the answer back as an observation', async () => {
    const sampler = recording(delegatePolicy());
    const samples = await collectRollouts(requests(2), tokenizer, sampler, limits);
    expect(samples.map((s) => [s.rolloutId, branchOf(s)])).toEqual([
      [0, '0'],
      [0, '0.1'],
      [1, '0'],
      [1, '0.1'],
    ]);
    const [root, child] = samples;
    const { a, b } = delegatedProblem(40);
    expect(root.branch).toBeUndefined();
    expect(root.parent).toBeUndefined();
    expect(child.parent).toEqual({ branch: '0', segmentIndex: 0, turn: 1 });
    expect(child.prompt).toBe(`${SUB_AGENT_HEADER}add ${a} ${b}`);
    expect(child.turns.map((t) => t.action)).toEqual([`<tool_call>add ${a} ${b}</tool_call>`, String(a + b)]);
    // The child's answer is the parent's observation; the parent answers with it and is right.
    expect(observationsOf(root)[0]).toBe(`<tool_result>${a + b}</tool_result>`);
    expect(root.turns.at(-1)?.action).toBe(String(a + b));
    expect(root).toMatchObject({ status: 'completed', done: true, reward: 1 });
    // The child: the root's status and reward, neither done nor truncated, terminal in the batch.
    expect(child).toMatchObject({ status: 'completed', done: false, truncated: false, reward: 1, rolloutId: 0, groupId: 0, seed: expect.any(Number) });
    expect(packSamples(samples, 200, 0).terminal[1]).toBe(1);
    // Its tokensAfter: the root's trainable tokens after the delegate call (its answer and <eos>).
    expect(child.tokensAfter).toBe(String(a + b).length + 1);
    // Every row is keyed by its own context: the child's key word is not the root's segment.
    const keys = new Set(sampler.keys.flat().map((k) => `${k.rolloutId}/${samplerSegmentWord(k.branch ?? '0', k.segment)}`));
    expect(keys).toEqual(new Set(['0/0', `0/${samplerSegmentWord('0.1', 0)}`, '1/0', `1/${samplerSegmentWord('0.1', 0)}`]));
    expect(samplerSegmentWord('0.1', 0)).not.toBe(0);
    // Sub-agents are rows of the same batched calls: both rollouts' children share their calls.
    expect(sampler.keys.some((call) => call.filter((k) => k.branch === '0.1').length === 2)).toBe(true);
  });

  it('every token the policy sampled trains exactly once, in the context that sampled it', async () => {
    const sampler = recording(delegatePolicy());
    const samples = await collectRollouts(requests(3), tokenizer, sampler, limits);
    expect(samples.reduce((n, s) => n + actionTokenCount(s), 0)).toBe(sampler.sampled);
    for (const root of samples.filter((s) => !s.parent)) {
      // The child's answer sits in the parent as observation tokens, never trainable there.
      const result = tokenizer.id('<tool_result>');
      const at = root.tokens.indexOf(result);
      expect(at).toBeGreaterThan(0);
      const closing = root.tokens.indexOf(tokenizer.id('</tool_result>'));
      for (let t = at; t <= closing; t++) {
        expect(root.actionMask[t]).toBe(0);
        expect(root.tokenKinds[t]).toBe(KIND_CODE.observation);
      }
    }
    // The outcome sits on each context's last trainable token.
    for (const s of samples) {
      const rewards = tokenRewards(s);
      const last = s.actionMask.lastIndexOf(1);
      expect(rewards[last]).toBe(s.reward);
    }
  });

  it('a sub-agent cannot delegate (depth 1): its call is an error observation and both contexts finish', async () => {
    const samples = await collectRollouts(requests(1, 'delegating'), tokenizer, recording(delegatePolicy({ firstChildTool: 'delegate' })), limits);
    expect(samples.map(branchOf)).toEqual(['0', '0.1']);
    const child = samples[1];
    expect(observationsOf(child)[0]).toContain('sub-agents may nest 1 deep, so sub-agent 0.1 cannot start another');
    expect(child.toolCalls?.tool_error).toBe(1);
    // The child answered "0"; the root passed it on and got it wrong, but nothing crashed.
    expect(samples[0]).toMatchObject({ status: 'completed', reward: 0 });
  });

  it('with maxDepth 2 a sub-agent delegates once more, and its own child is 0.1.1', async () => {
    const deeper = { ...limits, subAgents: { maxDepth: 2 } };
    const samples = await collectRollouts(requests(1, 'delegating'), tokenizer, recording(delegatePolicy({ firstChildTool: 'delegate' })), deeper);
    expect(samples.map(branchOf)).toEqual(['0', '0.1', '0.1.1']);
    expect(samples[2].parent).toEqual({ branch: '0.1', segmentIndex: 0, turn: 1 });
    // The grandchild was asked to delegate too, past the depth: it answered "0".
    expect(observationsOf(samples[2])[0]).toContain('cannot start another');
    // Its tokensAfter runs along the path to the root's end: its parent's later tokens plus the parent's own.
    const callTokens = tokenizer.encode(samples[1].turns[0].action).length;
    expect(samples[2].tokensAfter).toBe(actionTokenCount(samples[1]) - callTokens + samples[1].tokensAfter);
    expect(samples[1].tokensAfter).toBe(actionTokenCount(samples[0]) - tokenizer.encode(samples[0].turns[0].action).length);
  });

  it('past maxPerRollout a delegate call is an error observation', async () => {
    const one = { ...limits, subAgents: { maxPerRollout: 1 } };
    const samples = await collectRollouts(requests(1), tokenizer, recording(delegatePolicy({ delegates: 2 })), one);
    expect(samples.map(branchOf)).toEqual(['0', '0.1']);
    expect(observationsOf(samples[0])[1]).toContain('this rollout has already started the 1 sub-agents it may');
    expect(samples[0].toolCalls).toMatchObject({ ok: 1, tool_error: 1 });
  });

  it('a sub-agent whose environment throws: the parent reads an error and completes; the child never trains', async () => {
    const samples = await collectRollouts(requests(1, 'throwing'), tokenizer, recording(delegatePolicy()), limits);
    const [root, child] = samples;
    expect(observationsOf(root)[0]).toContain('sub-agent 0.1 failed: step failed: the sub-agent crashed');
    expect(root.status).toBe('completed');
    expect(child).toMatchObject({ branch: '0.1', status: 'failed' });
    expect(child.failure?.message).toContain('the sub-agent crashed');
  });

  it('a parent waiting on its child does not hold up sampler calls, even with one episode open and a long gather', async () => {
    const sampler = recording(delegatePolicy());
    const started = performance.now();
    const samples = await collectRollouts(requests(2), tokenizer, sampler, { ...limits, maxConcurrentEpisodes: 1, gatherMs: 2000 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(samples.map(branchOf)).toEqual(['0', '0.1', '0', '0.1']);
  });

  it('a tree is one rollout: one final segment, one group member with the task reward once', async () => {
    const samples = await collectRollouts(requests(2), tokenizer, recording(delegatePolicy()), limits);
    expect(finalSegments(samples).map((s) => [s.rolloutId, branchOf(s)])).toEqual([
      [0, '0'],
      [1, '0'],
    ]);
    expect(byRollout(samples, (s) => s).map((g) => g.map(branchOf))).toEqual([
      ['0', '0.1'],
      ['0', '0.1'],
    ]);
    const batch = packSamples(samples, 200, 0);
    const rows = { B: batch.B, T: batch.T, rewards: batch.rewards, rolloutIds: batch.rolloutIds, groupIds: batch.groupIds };
    const members = rolloutsOfRows(rows, batch.rewards);
    expect(members?.rewards.length).toBe(2);
    expect(Array.from(members?.rewards ?? [])).toEqual(samples.filter((s) => !s.parent).map((s) => s.reward));
    expect(Array.from(members?.rowRollout ?? [])).toEqual([0, 0, 1, 1]);
  });

  it('refuses limits past what the sampler keys can name', async () => {
    await expect(collectRollouts(requests(1), tokenizer, recording(delegatePolicy()), { ...limits, subAgents: { maxDepth: 4 } })).rejects.toThrow(
      'subAgents.maxDepth must be an integer from 0 to 3',
    );
    expect(() => samplerSegmentWord('0.256', 0)).toThrow('above 255');
  });
});
