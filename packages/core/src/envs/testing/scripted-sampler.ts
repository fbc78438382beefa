// A BatchSampler for the fast tests of the episode runner: it writes the text a script gives for
// each row (encoded with specials on, as the policy's own tokens are), ends it as told, cuts it to
// the row's budget, and records every call — its budgets, contexts and per-row stop strings — so a
// test can assert what the runner asked for. Log-prob −0.5 per token.

import type { ActionEnding } from '../environment.ts';
import type { BatchSampler, Generation, TokenCodec } from '../episode.ts';

export interface SamplerCall {
  budgets: number[];
  /** Each row's context, decoded. */
  contexts: string[];
  stopStrings: string[][];
}

export type Script = (context: string, row: number, call: number) => { text: string; ending: ActionEnding };

export function scriptedSampler(codec: TokenCodec, script: Script): BatchSampler & { calls: SamplerCall[] } {
  const calls: SamplerCall[] = [];
  return {
    calls,
    async generate(contexts, budgets, stopStrings) {
      const call = calls.length;
      calls.push({ budgets: [...budgets], contexts: contexts.map((c) => codec.decode(c)), stopStrings: stopStrings.map((s) => [...s]) });
      return contexts.map((ctx, row): Generation => {
        const { text, ending } = script(codec.decode(ctx), row, call);
        let ids = codec.encode(text);
        if (ending === 'eos') ids.push(codec.eosId);
        if (ids.length > budgets[row]) {
          ids = ids.slice(0, budgets[row]).filter((i) => i !== codec.eosId);
          return { ids, logprobs: ids.map(() => -0.5), ending: 'length' };
        }
        return { ids, logprobs: ids.map(() => -0.5), ending };
      });
    },
  };
}
