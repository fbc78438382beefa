// The episode runner's BatchSampler on the GPU: the Generator samples a fixed budget per row in
// one submit, and this cuts each row where the action really ended — at the first <eos>, or where
// its decoded text first ends with one of its own episode's stop strings (a complete tool call).
// Stops are per row: one episode's "</tool_call>" must not cut another's answer short.
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

  constructor(
    private readonly generator: Generator,
    private readonly codec: Pick<TokenCodec, 'decode' | 'eosId'>,
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
      ...(keys
        ? { seed: this.seed, keys: keys.map((k) => [k.rolloutId, samplerSegmentWord(k.branch ?? ROOT_BRANCH, k.segment)] as const) }
        : { seed: mixSeed(this.seed, this.calls++) }),
      stream: this.stream,
    });
    return rows.map((row, b) => cutAction(row.ids, row.logprobs, this.codec, stopStrings[b]));
  }
}

/** The action within a fixed-budget row: up to and including <eos>, else up to the first of the row's stop strings. */
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
    for (let i = 0; i < (ending === 'eos' ? end - 1 : end); i++) {
      const text = codec.decode(ids.slice(0, i + 1));
      if (stopStrings.some((s) => text.endsWith(s))) {
        end = i + 1;
        ending = 'stop';
        break;
      }
    }
  }
  return { ids: ids.slice(0, end), logprobs: logprobs.slice(0, end), ending };
}
