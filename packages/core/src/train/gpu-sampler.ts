// The episode runner's BatchSampler on the GPU: the Generator samples up to a budget per row, and
// this cuts each row where the action really ended — at the first <eos>, or where its decoded text
// first ends with one of its own episode's stop strings (a complete tool call). Stops are per row:
// one episode's "</tool_call>" must not cut another's answer short. <eos> and every stop string
// that is one token (a special such as "</tool_call>") also go to the Generator as token ids, which
// the GPU checks after each draw, so a call ends once every row has stopped instead of stepping its
// whole budget; a stop string of several tokens is found by the cut alone (its row runs its budget).
//
// Noise: with row keys (the episode runner always passes them), a draw's Philox key is (seed, stream)
// and its counter (the position it fills, rollout id, segment — a sub-agent's segment word names its
// branch too, envs/branches.ts) (model/generate.ts,
// kernels/src/sampling): a rollout's tokens depend on the run seed, the iteration (reseed), the
// rollout and the token's position — not on which call or row it was sampled in, so episodes whose
// tools return at different times replay exactly (envs/episode.ts). Without keys a call draws under
// (mixSeed(seed, call index), stream) with counter (position, row in the call).
//
// KV cache: the keys also let the Generator keep each sequence's cache from one turn to the next
// (model/cached-rows.ts), so a turn feeds only its observation and action. Cached keys and values
// belong to the weights that wrote them; `reseed` starts a collection, after which the policy may
// have been updated (or a past policy swapped in), so it makes the Generator forget them.

import { ROOT_BRANCH, samplerSegmentWord } from '../envs/branches.ts';
import type { ActionEnding } from '../envs/environment.ts';
import type { BatchSampler, Generation, RowKey, TokenCodec } from '../envs/episode.ts';
import { mixSeed } from '../envs/seeds.ts';
import type { Generator } from '../model/generate.ts';

export interface SamplerSettings {
  temperature: number;
  topK: number;
}

export class GpuSampler implements BatchSampler {
  private seed = 0;
  private calls = 0;
  /** Stop ids by a row's stop strings (joined): the same few lists recur every call. */
  private readonly stopIds = new Map<string, readonly number[]>();

  constructor(
    private readonly generator: Generator,
    private readonly codec: Pick<TokenCodec, 'decode' | 'encode' | 'eosId'>,
    private readonly settings: SamplerSettings,
    /** Philox stream separating this sampler's draws from others sharing a seed. */
    private readonly stream: number,
  ) {}

  /** Draws after this depend only on `words` (e.g. run seed, phase, iteration): resuming replays them. */
  reseed(...words: number[]): void {
    this.generator.forgetCache();
    this.seed = mixSeed(...words);
    this.calls = 0;
  }

  async generate(
    contexts: readonly (readonly number[])[],
    budgets: readonly number[],
    stopStrings: readonly (readonly string[])[],
    keys?: readonly RowKey[],
  ): Promise<Generation[]> {
    if (stopStrings.length !== contexts.length) throw new RangeError(`generate: ${stopStrings.length} stop-string lists for ${contexts.length} contexts`);
    if (keys && keys.length !== contexts.length) throw new RangeError(`generate: ${keys.length} row keys for ${contexts.length} contexts`);
    const rows = await this.generator.generate(contexts, budgets, {
      temperature: this.settings.temperature,
      topK: this.settings.topK,
      stops: stopStrings.map((strings) => this.tokenStops(strings)),
      ...(keys
        ? { seed: this.seed, keys: keys.map((k) => [k.rolloutId, samplerSegmentWord(k.branch ?? ROOT_BRANCH, k.segment)] as const) }
        : { seed: mixSeed(this.seed, this.calls++) }),
      stream: this.stream,
    });
    return rows.map((row, b) => cutAction(row.ids, row.logprobs, this.codec, stopStrings[b]));
  }

  /** <eos> and the ids of the stop strings that are one token each. */
  private tokenStops(strings: readonly string[]): readonly number[] {
    const key = strings.join('\u0000');
    let ids = this.stopIds.get(key);
    if (!ids) {
      const single = strings.map((s) => this.codec.encode(s, { specials: true })).filter((encoded) => encoded.length === 1);
      ids = [...new Set([this.codec.eosId, ...single.map((encoded) => encoded[0])])];
      this.stopIds.set(key, ids);
    }
    return ids;
  }
}

/**
 * The action within a row: up to and including <eos>, else up to the first of the row's stop
 * strings. The decoded text grows a token at a time (a codec's text is the concatenation of its
 * tokens' texts, as CharTokenizer's is), so finding a stop is linear in the row, not quadratic.
 */
export function cutAction(
  ids: readonly number[],
  logprobs: readonly number[],
  codec: Pick<TokenCodec, 'decode' | 'eosId'>,
  stopStrings: readonly string[],
): Generation {
  let end = ids.length;
  let ending: ActionEnding = 'length';
  const eos = ids.indexOf(codec.eosId);
  if (eos >= 0) {
    end = eos + 1;
    ending = 'eos';
  }
  if (stopStrings.length > 0) {
    let text = '';
    for (let i = 0; i < (ending === 'eos' ? end - 1 : end); i++) {
      text += codec.decode([ids[i]]);
      if (stopStrings.some((s) => text.endsWith(s))) {
        end = i + 1;
        ending = 'stop';
        break;
      }
    }
  }
  return { ids: ids.slice(0, end), logprobs: logprobs.slice(0, end), ending };
}
