// The continuous-batching scheduler against a recording stand-in sampler: a sequence arriving while a
// call runs joins the next call, budgets are cut to the chunk and max_tokens, calls group by sampling
// settings, an abort drops a sequence before its next call, and a failing call rejects only its rows.

import { describe, expect, it } from 'vitest';
import type { GeneratedRow, SamplingOptions } from '../model/generate.ts';
import { BatchScheduler, type ChunkSampler, type SequenceSpec } from './batch-scheduler.ts';

class Recording implements ChunkSampler {
  readonly calls: { rows: number; budgets: number[]; temperature: number; contexts: number[][] }[] = [];
  failNext = false;
  async generate(contexts: readonly (readonly number[])[], budgets: readonly number[], options: SamplingOptions): Promise<GeneratedRow[]> {
    this.calls.push({ rows: contexts.length, budgets: [...budgets], temperature: options.temperature, contexts: contexts.map((c) => [...c]) });
    await new Promise((r) => setTimeout(r, 2));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('device lost');
    }
    return budgets.map((n, b) => ({ ids: Array.from({ length: n }, (_, i) => contexts[b].length + i), logprobs: new Array(n).fill(-1) }));
  }
}

const settings = { contextLength: 64, maxRows: 8, chunkTokens: 4, seed: 1, stream: 5 };
const spec = (over: Partial<SequenceSpec> = {}): SequenceSpec => ({
  prompt: [1, 2],
  maxTokens: 10,
  temperature: 1,
  topK: 0,
  key: [0, 0],
  onChunk: (ids) => ({ keep: ids.length, done: false }),
  ...over,
});

describe('BatchScheduler', () => {
  it('joins a late sequence to the next call and cuts budgets to the chunk and max_tokens', async () => {
    const sampler = new Recording();
    const scheduler = new BatchScheduler(sampler, settings);
    const first = scheduler.run(spec({ key: [1, 0] }));
    await new Promise((r) => setTimeout(r, 1));
    const second = scheduler.run(spec({ key: [2, 0], maxTokens: 3 }));
    expect(await Promise.all([first, second])).toEqual(['length', 'length']);
    expect(sampler.calls.map((c) => c.budgets)).toEqual([[4], [4, 3], [2]]);
    // Each call feeds the prompt and what was kept so far.
    expect(sampler.calls[2].contexts[0]).toEqual([1, 2, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('ends a sequence where its owner says, and groups calls by temperature', async () => {
    const sampler = new Recording();
    const scheduler = new BatchScheduler(sampler, settings);
    const kept: number[] = [];
    const done = scheduler.run(
      spec({
        onChunk: (ids) => {
          kept.push(...ids.slice(0, 2));
          return { keep: 2, done: true };
        },
      }),
    );
    const greedy = scheduler.run(spec({ temperature: 0, maxTokens: 4 }));
    expect(await Promise.all([done, greedy])).toEqual(['done', 'length']);
    expect(kept).toEqual([2, 3]);
    expect(sampler.calls.map((c) => [c.rows, c.temperature])).toEqual([
      [1, 1],
      [1, 0],
    ]);
  });

  it('drops an aborted sequence before its next call and rejects only the rows of a failed call', async () => {
    const sampler = new Recording();
    const scheduler = new BatchScheduler(sampler, settings);
    const controller = new AbortController();
    const aborted = scheduler.run(
      spec({
        signal: controller.signal,
        onChunk: (ids) => {
          controller.abort();
          return { keep: ids.length, done: false };
        },
      }),
    );
    expect(await aborted).toBe('aborted');
    expect(sampler.calls).toHaveLength(1);
    sampler.failNext = true;
    await expect(scheduler.run(spec())).rejects.toThrow('device lost');
    expect(await scheduler.run(spec({ maxTokens: 2 }))).toBe('length');
    expect(scheduler.pending).toBe(0);
  });

  it('refuses a prompt and budget past the context', () => {
    const scheduler = new BatchScheduler(new Recording(), settings);
    expect(() => scheduler.run(spec({ prompt: new Array(60).fill(1), maxTokens: 5 }))).toThrow('exceeds the context length 64');
  });
});
