import { describe, expect, it } from 'vitest';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { ADDITION_VOCABULARY, AdditionEnv, additionProblem } from './addition.ts';
import type { ActionEnding, Environment, StepResult } from './environment.ts';
import { type BatchSampler, collectRollouts, type Generation, type TokenCodec } from './episode.ts';
import { actionTokenCount, packSamples, tokenRewards } from './sample.ts';

// A character-level codec over printable ASCII; id 0 is end-of-sequence.
const codec: TokenCodec = {
  eosId: 0,
  encode: (text) => [...text].map((c) => c.charCodeAt(0) - 31),
  decode: (ids) => ids.map((i) => String.fromCharCode(i + 31)).join(''),
};

/** A sampler that writes a scripted text per call, ending as told; log-prob −0.5 per token. */
function scripted(script: (context: string, row: number, call: number) => { text: string; ending: ActionEnding }): BatchSampler & { calls: number[][] } {
  const calls: number[][] = [];
  let call = 0;
  return {
    calls,
    async generate(contexts, budgets) {
      calls.push([...budgets]);
      const out = contexts.map((ctx, row): Generation => {
        const { text, ending } = script(codec.decode(ctx), row, call);
        let ids = codec.encode(text);
        if (ending === 'eos') ids.push(codec.eosId);
        if (ids.length > budgets[row]) {
          ids = ids.slice(0, budgets[row]).filter((i) => i !== codec.eosId);
          return { ids, logprobs: ids.map(() => -0.5), ending: 'length' };
        }
        return { ids, logprobs: ids.map(() => -0.5), ending };
      });
      call++;
      return out;
    },
  };
}

/** A two-turn tool environment: the policy must call "<c>ping</c>", then answer with the tool's word. */
class ToolEnv implements Environment {
  readonly name = 'tool';
  readonly stopStrings = ['</c>'];
  private turn = 0;
  reset(): string {
    this.turn = 0;
    return 'Q:';
  }
  step(action: string, ending: ActionEnding): StepResult {
    this.turn++;
    if (this.turn === 1 && ending === 'stop' && action === '<c>ping</c>') return { observation: '=pong;', reward: 0, done: false, info: {} };
    return { reward: action === 'pong' && ending === 'eos' ? 1 : 0, done: true, info: { turn: this.turn } };
  }
}

describe('collectRollouts', () => {
  it('single turn: masks, reward on the end-of-sequence token, log-probs on actions only', async () => {
    const range = { minDigits: 1, maxDigits: 2 };
    const requests = [0, 1, 2].map((i) => ({ env: new AdditionEnv(range), seed: 100 + i, rolloutId: i, groupId: Math.floor(i / 2) }));
    const sampler = scripted((ctx, row) => {
      const p = additionProblem(100 + row, range);
      expect(ctx).toBe(p.prompt);
      return { text: row === 1 ? '9999' : p.answer, ending: 'eos' };
    });
    const samples = await collectRollouts(requests, codec, sampler, { contextLength: 16, maxNewTokens: 8, maxTurns: 1 });
    expect(sampler.calls).toHaveLength(1);
    const [right, wrong] = samples;
    const p = additionProblem(100, range);
    expect(codec.decode(right.tokens)).toBe(`${p.prompt}${p.answer}\x1f`);
    expect(right.responseStart).toBe(p.prompt.length);
    expect([...right.actionMask]).toEqual([...Array(p.prompt.length).fill(0), ...Array(p.answer.length + 1).fill(1)]);
    expect([...right.observationMask].every((m) => m === 0)).toBe(true);
    expect(right.reward).toBe(1);
    expect(right.stepRewards).toEqual([{ position: right.tokens.length - 1, value: 1 }]);
    expect(right.tokens[right.stepRewards[0].position]).toBe(codec.eosId);
    expect([...right.rolloutLogprobs]).toEqual([...right.actionMask].map((m) => (m ? -0.5 : 0)));
    expect(right).toMatchObject({ done: true, truncated: false, seed: 100, rolloutId: 0, groupId: 0, turns: [{ action: p.answer, ending: 'eos' }] });
    expect(right.meta).toMatchObject({ correct: true });
    expect(wrong.reward).toBe(0);
    expect(samples[2].groupId).toBe(1);
  });

  it('a length-limited action gets reward 0 and is a true terminal for addition', async () => {
    const env = new AdditionEnv({ minDigits: 2, maxDigits: 2 });
    const sampler = scripted(() => ({ text: '123456', ending: 'eos' }));
    const [s] = await collectRollouts([{ env, seed: 1, rolloutId: 0, groupId: 0 }], codec, sampler, { contextLength: 32, maxNewTokens: 3, maxTurns: 1 });
    expect(sampler.calls[0]).toEqual([3]);
    expect(s.turns[0]).toEqual({ action: '123', ending: 'length' });
    expect(s).toMatchObject({ reward: 0, done: true });
    expect(actionTokenCount(s)).toBe(3);
  });

  it('multi-turn: the tool output is an observation, the reward sits on the last action token', async () => {
    const sampler = scripted((ctx) => (ctx.endsWith('Q:') ? { text: '<c>ping</c>', ending: 'stop' } : { text: 'pong', ending: 'eos' }));
    const [s] = await collectRollouts([{ env: new ToolEnv(), seed: 0, rolloutId: 7, groupId: 0 }], codec, sampler, {
      contextLength: 64,
      maxNewTokens: 16,
      maxTurns: 4,
    });
    expect(codec.decode(s.tokens)).toBe('Q:<c>ping</c>=pong;pong\x1f');
    const kinds = [...s.tokens.keys()].map((t) => (s.actionMask[t] ? 'a' : s.observationMask[t] ? 'o' : 'p')).join('');
    expect(kinds).toBe(`pp${'a'.repeat(11)}${'o'.repeat(6)}${'a'.repeat(5)}`);
    expect(s.turns).toEqual([
      { action: '<c>ping</c>', ending: 'stop', observation: '=pong;' },
      { action: 'pong', ending: 'eos' },
    ]);
    expect(s.stepRewards).toEqual([
      { position: 12, value: 0 },
      { position: 23, value: 1 },
    ]);
    expect(tokenRewards(s)[23]).toBe(1);
    expect(s).toMatchObject({ done: true, truncated: false, rolloutId: 7 });
  });

  it('cuts an episode as truncated at the turn limit and when the context fills', async () => {
    const loop = scripted(() => ({ text: '<c>ping</c>', ending: 'stop' }));
    class Echo extends ToolEnv {
      override step(): StepResult {
        return { observation: '=pong;', reward: 0, done: false, info: {} };
      }
    }
    const [byTurns] = await collectRollouts([{ env: new Echo(), seed: 0, rolloutId: 0, groupId: 0 }], codec, loop, {
      contextLength: 200,
      maxNewTokens: 16,
      maxTurns: 2,
    });
    expect(byTurns).toMatchObject({ done: false, truncated: true });
    expect(byTurns.turns).toHaveLength(2);
    const [byContext] = await collectRollouts([{ env: new Echo(), seed: 0, rolloutId: 0, groupId: 0 }], codec, loop, {
      contextLength: 30,
      maxNewTokens: 16,
      maxTurns: 10,
    });
    expect(byContext.truncated).toBe(true);
    expect(byContext.tokens.length).toBeLessThanOrEqual(30);
  });

  it('refuses a prompt that fills the context and a sampler that breaks its contract', async () => {
    const env = new AdditionEnv({ minDigits: 3, maxDigits: 3 });
    const ok = scripted(() => ({ text: '1', ending: 'eos' }));
    await expect(collectRollouts([{ env, seed: 0, rolloutId: 0, groupId: 0 }], codec, ok, { contextLength: 8, maxNewTokens: 4, maxTurns: 1 })).rejects.toThrow(
      /prompt of seed 0 has 8 tokens, leaving no room in a context of 8/,
    );
    const liar: BatchSampler = { generate: async () => [{ ids: [5, 6], logprobs: [-1], ending: 'eos' }] };
    await expect(
      collectRollouts([{ env, seed: 0, rolloutId: 0, groupId: 0 }], codec, liar, { contextLength: 32, maxNewTokens: 4, maxTurns: 1 }),
    ).rejects.toThrow(/2 ids but 1 logprobs/);
    const noEos: BatchSampler = { generate: async () => [{ ids: [5, 6], logprobs: [-1, -1], ending: 'eos' }] };
    await expect(
      collectRollouts([{ env, seed: 0, rolloutId: 0, groupId: 0 }], codec, noEos, { contextLength: 32, maxNewTokens: 4, maxTurns: 1 }),
    ).rejects.toThrow(/ending "eos" but end-of-sequence at index -1/);
    await expect(collectRollouts([], codec, ok, { contextLength: 0, maxNewTokens: 4, maxTurns: 1 })).rejects.toThrow(
      /contextLength must be a positive integer/,
    );
  });
});

describe('a failed rollout ends alone, as a Sample with its failure', () => {
  /** The tool environment, except that step `failOn` (1-based) throws. */
  class FlakyEnv extends ToolEnv {
    private steps = 0;
    constructor(private readonly failOn: number) {
      super();
    }
    override step(action: string, ending: ActionEnding): StepResult {
      if (++this.steps === this.failOn) throw new Error('the tool crashed');
      return super.step(action, ending);
    }
  }
  const limits = { contextLength: 64, maxNewTokens: 16, maxTurns: 3 };
  const script = scripted((ctx) => (ctx.endsWith('=pong;') ? { text: 'pong', ending: 'eos' } : { text: '<c>ping</c>', ending: 'stop' }));

  it('an environment that throws in step or reset fails that rollout; the others run on', async () => {
    const failing = { reset: () => Promise.reject(new Error('no such task')), step: () => ({ reward: 0, done: true, info: {} }), name: 'x', stopStrings: [] };
    const requests = [new ToolEnv(), new FlakyEnv(2), failing as Environment, new ToolEnv()].map((env, i) => ({ env, seed: i, rolloutId: i, groupId: 0 }));
    const samples = await collectRollouts(requests, codec, script, limits);
    expect(samples.map((s) => s.failure?.source ?? 'ok')).toEqual(['ok', 'environment', 'environment', 'ok']);
    expect(samples[1].failure?.message).toBe('step failed: the tool crashed');
    expect(samples[2].failure?.message).toBe('reset(2) failed: no such task');
    expect(samples[2].tokens).toEqual([]);
    // The flaky rollout keeps what it had (its second action), but nothing of it will train.
    expect(samples[1].turns.map((t) => t.action)).toEqual(['<c>ping</c>', 'pong']);
    expect([samples[0].reward, samples[3].reward]).toEqual([1, 1]);
  });

  it('a row the sampler aborts fails with the sampler as its source', async () => {
    const aborting: BatchSampler = {
      async generate(contexts) {
        return contexts.map((_, row) =>
          row === 1
            ? { ids: [], logprobs: [], ending: 'length', aborted: 'the KV cache was evicted' }
            : { ids: codec.encode('x'), logprobs: [-1], ending: 'length' },
        );
      },
    };
    const requests = [0, 1].map((i) => ({ env: new ToolEnv(), seed: i, rolloutId: i, groupId: 0 }));
    const [ok, aborted] = await collectRollouts(requests, codec, aborting, { ...limits, maxTurns: 1 });
    expect(ok.failure).toBeUndefined();
    expect(aborted.failure).toEqual({ source: 'sampler', message: 'the KV cache was evicted' });
  });
});

describe('with the real tokenizer', () => {
  it('CharTokenizer over the addition vocabulary plugs in as the codec', async () => {
    const tokenizer = new CharTokenizer(ADDITION_VOCABULARY);
    expect(tokenizer.vocabSize).toBe(13);
    const range = { minDigits: 2, maxDigits: 3 };
    const p = additionProblem(42, range);
    const sampler: BatchSampler = {
      generate: async (contexts) => {
        expect(tokenizer.decode(contexts[0])).toBe(p.prompt);
        const ids = [...tokenizer.encode(p.answer), tokenizer.eosId];
        return [{ ids, logprobs: ids.map(() => -0.1), ending: 'eos' }];
      },
    };
    const [s] = await collectRollouts([{ env: new AdditionEnv(range), seed: 42, rolloutId: 0, groupId: 0 }], tokenizer, sampler, {
      contextLength: 16,
      maxNewTokens: 6,
      maxTurns: 1,
    });
    expect(s.reward).toBe(1);
    expect(tokenizer.decode(s.tokens)).toBe(`${p.prompt}${p.answer}<eos>`);
  });
});

describe('packSamples', () => {
  it('lays samples into padded [B, T] rows with zero masks on padding', async () => {
    const range = { minDigits: 1, maxDigits: 1 };
    const requests = [0, 1].map((i) => ({ env: new AdditionEnv(range), seed: i, rolloutId: i, groupId: 3 }));
    const samples = await collectRollouts(
      requests,
      codec,
      scripted((_, row) => ({ text: additionProblem(row, range).answer, ending: 'eos' })),
      { contextLength: 10, maxNewTokens: 4, maxTurns: 1 },
    );
    const T = 8;
    const batch = packSamples(samples, T, 95);
    expect(batch.B).toBe(2);
    for (let b = 0; b < 2; b++) {
      const L = samples[b].tokens.length;
      expect(batch.lengths[b]).toBe(L);
      expect([...batch.tokens.subarray(b * T, b * T + L)]).toEqual(samples[b].tokens);
      expect([...batch.tokens.subarray(b * T + L, (b + 1) * T)].every((t) => t === 95)).toBe(true);
      expect([...batch.actionMask.subarray(b * T + L, (b + 1) * T)].every((m) => m === 0)).toBe(true);
      expect(batch.rewards[b * T + L - 1]).toBe(1);
      expect(batch.terminal[b]).toBe(1);
      expect(batch.groupIds[b]).toBe(3);
    }
    expect(() => packSamples(samples, 3, 0)).toThrow(/more than T = 3/);
  });
});
