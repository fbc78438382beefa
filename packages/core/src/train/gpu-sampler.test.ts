// The GPU sampler's cut of each fixed-budget row: at its <eos>, or where its decoded text first
// ends with one of that row's own stop strings — never another row's. The Generator is replaced by
// one returning fixed rows, so this checks the host-side cut and the per-call seeds it asks for.

import { describe, expect, it } from 'vitest';
import { mixSeed } from '../envs/seeds.ts';
import type { GeneratedRow, Generator, SamplingOptions } from '../model/generate.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { cutAction, GpuSampler } from './gpu-sampler.ts';

const tokenizer = new CharTokenizer();

/** A Generator whose row b is `texts[b]` (encoded with specials on), recording the options of each call. */
function fixedGenerator(texts: string[]): Generator & { options: SamplingOptions[] } {
  const options: SamplingOptions[] = [];
  const generate = async (contexts: readonly (readonly number[])[], _budgets: readonly number[], o: SamplingOptions): Promise<GeneratedRow[]> => {
    options.push(o);
    return texts.slice(0, contexts.length).map((t) => {
      const ids = tokenizer.encode(t);
      return { ids, logprobs: ids.map((_, i) => -0.1 * (i + 1)) };
    });
  };
  return { generate, options, forgetCache: () => {} } as unknown as Generator & { options: SamplingOptions[] };
}

describe('GpuSampler', () => {
  it('cuts each row at its own stop strings; a stop of another row leaves it whole', async () => {
    const same = 'a</c>b<eos>c';
    const generator = fixedGenerator([same, same, same]);
    const sampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 5);
    sampler.reseed(1, 2, 3);
    const rows = await sampler.generate([[1], [1], [1]], [11, 11, 11], [['</c>'], [], ['<tool_call>', 'b']]);
    expect(rows.map((r) => [tokenizer.decode(r.ids), r.ending])).toEqual([
      ['a</c>', 'stop'],
      ['a</c>b<eos>', 'eos'],
      ['a</c>b', 'stop'],
    ]);
    expect(rows[0].logprobs).toHaveLength(rows[0].ids.length);
    await expect(sampler.generate([[1]], [3], [])).rejects.toThrow(/0 stop-string lists for 1 contexts/);
    // The noise key is per call: (mixSeed(seed, call index), stream).
    await sampler.generate([[1]], [3], [[]]);
    expect(generator.options.map((o) => [o.seed, o.stream])).toEqual([
      [mixSeed(mixSeed(1, 2, 3), 0), 5],
      [mixSeed(mixSeed(1, 2, 3), 1), 5],
    ]);
  });

  it('cutAction: a special-token stop matches by its name; with no ending inside the budget the row is length-ended', () => {
    const ids = tokenizer.encode('<tool_call>add 1 2</tool_call> more');
    const cut = cutAction(
      ids,
      ids.map(() => -1),
      tokenizer,
      ['</tool_call>'],
    );
    expect([tokenizer.decode(cut.ids), cut.ending]).toEqual(['<tool_call>add 1 2</tool_call>', 'stop']);
    expect(
      cutAction(
        ids,
        ids.map(() => -1),
        tokenizer,
        [],
      ).ending,
    ).toBe('length');
  });
});
