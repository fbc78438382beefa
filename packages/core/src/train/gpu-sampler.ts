// The episode runner's BatchSampler on the GPU: the Generator samples a fixed budget per row in
// one submit, and this cuts each row where the action really ended — at the first <eos>, or where
// its decoded text first ends with one of the environment's stop strings (a complete tool call).

import type { ActionEnding } from '../envs/environment.ts';
import type { BatchSampler, Generation, TokenCodec } from '../envs/episode.ts';
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
    private readonly codec: TokenCodec,
    private readonly settings: SamplerSettings,
    /** Philox stream separating this sampler's draws from others sharing a seed. */
    private readonly stream: number,
  ) {}

  /** Draws after this depend only on `words` (e.g. run seed, phase, iteration): resuming replays them. */
  reseed(...words: number[]): void {
    this.seed = mixSeed(...words);
    this.calls = 0;
  }

  async generate(contexts: readonly (readonly number[])[], budgets: readonly number[], stopStrings: readonly string[]): Promise<Generation[]> {
    const rows = await this.generator.generate(contexts, budgets, {
      temperature: this.settings.temperature,
      topK: this.settings.topK,
      seed: mixSeed(this.seed, this.calls++),
      stream: this.stream,
    });
    return rows.map((row) => cutAction(row.ids, row.logprobs, this.codec, stopStrings));
  }
}

/** The action within a fixed-budget row: up to and including <eos>, else up to the first stop string. */
export function cutAction(ids: readonly number[], logprobs: readonly number[], codec: TokenCodec, stopStrings: readonly string[]): Generation {
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
