// Runs episodes: environment text ↔ token ids ↔ a batched sampler, turn by turn, producing Samples.
// All active episodes of a batch generate together (one sampler call per turn), which is what a
// GPU sampler wants; single-turn tasks finish in one call. The sampler owns the model and the stop
// checks; this file owns masks, reward placement, truncation and context budgets.

import type { ActionEnding, Environment } from './environment.ts';
import { type Sample, SampleBuilder } from './sample.ts';

/** What the runner needs from a tokenizer; CharTokenizer (../tokenizer/char-tokenizer.ts) is one. */
export interface TokenCodec {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** The end-of-sequence token id: sampling it ends the action with ending 'eos'. */
  readonly eosId: number;
}

export interface Generation {
  /** Sampled ids, including the end-of-sequence id when `ending` is 'eos'. */
  ids: number[];
  /** log π_roll of each sampled id (the distribution it was actually drawn from). */
  logprobs: number[];
  ending: ActionEnding;
}

export interface BatchSampler {
  /**
   * Continues every context by at most `budgets[i]` tokens, stopping a row at end-of-sequence or
   * when its decoded new text ends with one of `stopStrings`. Returns one Generation per context.
   */
  generate(contexts: readonly (readonly number[])[], budgets: readonly number[], stopStrings: readonly string[]): Promise<Generation[]>;
}

export interface EpisodeRequest {
  env: Environment;
  seed: number;
  rolloutId: number;
  groupId: number;
}

export interface RolloutLimits {
  /** Model context length: prompt + response never exceed it. */
  contextLength: number;
  /** New tokens per action (per turn). */
  maxNewTokens: number;
  /** Actions per episode before it is cut as truncated. */
  maxTurns: number;
}

function checkLimits(limits: RolloutLimits): void {
  for (const key of ['contextLength', 'maxNewTokens', 'maxTurns'] as const) {
    const v = limits[key];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${key} must be a positive integer, got ${v}`);
  }
}

function checkGeneration(g: Generation, budget: number, eosId: number, row: number): void {
  if (g.ids.length !== g.logprobs.length) throw new RangeError(`sampler row ${row}: ${g.ids.length} ids but ${g.logprobs.length} logprobs`);
  if (g.ids.length > budget) throw new RangeError(`sampler row ${row}: ${g.ids.length} tokens exceed the budget of ${budget}`);
  const eosAt = g.ids.indexOf(eosId);
  if (g.ending === 'eos' ? eosAt !== g.ids.length - 1 : eosAt !== -1)
    throw new RangeError(`sampler row ${row}: ending "${g.ending}" but end-of-sequence at index ${eosAt} of ${g.ids.length}`);
}

/** Runs every requested episode to its end and returns one Sample each, in request order. */
export async function collectRollouts(requests: readonly EpisodeRequest[], codec: TokenCodec, sampler: BatchSampler, limits: RolloutLimits): Promise<Sample[]> {
  checkLimits(limits);
  const builders: SampleBuilder[] = [];
  for (const r of requests) {
    const prompt = await r.env.reset(r.seed);
    const ids = codec.encode(prompt);
    if (ids.length >= limits.contextLength)
      throw new RangeError(`the prompt of seed ${r.seed} has ${ids.length} tokens, leaving no room in a context of ${limits.contextLength}`);
    builders.push(new SampleBuilder({ seed: r.seed, rolloutId: r.rolloutId, groupId: r.groupId }, prompt, ids));
  }
  const samples: (Sample | undefined)[] = requests.map(() => undefined);
  const stopStrings = [...new Set(requests.flatMap((r) => r.env.stopStrings))];
  let active = requests.map((_, i) => i);
  for (let turn = 0; turn < limits.maxTurns && active.length > 0; turn++) {
    // A full context cannot take another action: cut it as truncated before asking the sampler.
    for (const i of active) if (builders[i].length >= limits.contextLength) samples[i] = builders[i].finish({ done: false });
    active = active.filter((i) => samples[i] === undefined);
    if (active.length === 0) break;
    const budgets = active.map((i) => Math.min(limits.maxNewTokens, limits.contextLength - builders[i].length));
    const generations = await sampler.generate(
      active.map((i) => builders[i].context()),
      budgets,
      stopStrings,
    );
    if (generations.length !== active.length) throw new RangeError(`the sampler returned ${generations.length} generations for ${active.length} contexts`);
    const next: number[] = [];
    for (let k = 0; k < active.length; k++) {
      const i = active[k];
      const g = generations[k];
      checkGeneration(g, budgets[k], codec.eosId, k);
      const text = codec.decode(g.ending === 'eos' ? g.ids.slice(0, -1) : g.ids);
      const b = builders[i];
      b.addAction(g.ids, g.logprobs, text, g.ending);
      const result = await requests[i].env.step(text, g.ending);
      b.addReward(result.reward);
      if (result.done) {
        samples[i] = b.finish({ done: true, meta: result.info });
        continue;
      }
      if (result.observation !== undefined) {
        const obs = codec.encode(result.observation);
        // An observation that does not fit ends the episode here; its tokens would be untrainable anyway.
        if (b.length + obs.length >= limits.contextLength) {
          samples[i] = b.finish({ done: false, meta: result.info });
          continue;
        }
        b.addObservation(obs, result.observation);
      }
      next.push(i);
    }
    active = next;
  }
  for (const i of active) samples[i] ??= builders[i].finish({ done: false });
  return samples as Sample[];
}
