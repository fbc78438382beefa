// Runs episodes: environment text ↔ token ids ↔ a batched sampler, turn by turn, producing Samples.
// All active episodes of a batch generate together (one sampler call per turn), which is what a
// GPU sampler wants; single-turn tasks finish in one call. The sampler owns the model and the stop
// checks; this file owns masks, reward placement, truncation and context budgets.
//
// A rollout that fails — its environment throws in reset or step, or the sampler aborts its row —
// ends there as a Sample with `failure` set; the other episodes of the batch run on. The trainer
// drops failed rollouts from their groups (train/valid-rollouts.ts), so one crashing tool call
// costs one rollout, not the iteration.

import type { ActionEnding, Environment } from './environment.ts';
import { failedSample, type Sample, SampleBuilder } from './sample.ts';

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
  /** The sampler gave up on this row (why, in one sentence): the episode ends as a failed rollout. */
  aborted?: string;
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
  const samples: (Sample | undefined)[] = requests.map(() => undefined);
  for (const [i, r] of requests.entries()) {
    const ids = { seed: r.seed, rolloutId: r.rolloutId, groupId: r.groupId };
    let prompt: string;
    try {
      prompt = await r.env.reset(r.seed);
    } catch (error) {
      samples[i] = failedSample(ids, { source: 'environment', message: `reset(${r.seed}) failed: ${messageOf(error)}` });
      continue;
    }
    const promptIds = codec.encode(prompt);
    if (promptIds.length >= limits.contextLength)
      throw new RangeError(`the prompt of seed ${r.seed} has ${promptIds.length} tokens, leaving no room in a context of ${limits.contextLength}`);
    builders[i] = new SampleBuilder(ids, prompt, promptIds);
  }
  const stopStrings = [...new Set(requests.flatMap((r) => r.env.stopStrings))];
  let active = requests.map((_, i) => i).filter((i) => samples[i] === undefined);
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
      const b = builders[i];
      if (g.aborted !== undefined) {
        samples[i] = b.finish({ done: false, failure: { source: 'sampler', message: g.aborted } });
        continue;
      }
      checkGeneration(g, budgets[k], codec.eosId, k);
      const text = codec.decode(g.ending === 'eos' ? g.ids.slice(0, -1) : g.ids);
      b.addAction(g.ids, g.logprobs, text, g.ending);
      let result: Awaited<ReturnType<Environment['step']>>;
      try {
        result = await requests[i].env.step(text, g.ending);
      } catch (error) {
        samples[i] = b.finish({ done: false, failure: { source: 'environment', message: `step failed: ${messageOf(error)}` } });
        continue;
      }
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
