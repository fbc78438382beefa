// The generative critic writes its critiques on the GPU with the same sampler the policy's rollouts
// use (train/gpu-sampler.ts over model/generate.ts): one call for the whole batch, one critic prompt
// per rollout, each row keyed by its rollout id so a row's draws depend on (run seed, iteration,
// rollout) only. Temperature 1, all tokens: the REINFORCE step (critic-training.ts) trains
// log π_c at τ = 1, so the samples must come from that distribution.
//
// Fallback: a malformed critique (value-digit.ts) gets the mean value of the batch's well-formed
// ones — a baseline that says nothing about its own prompt but is still the critic's — or 0.5 when
// none is well-formed (a fresh critic), the middle of [0, 1]. A baseline that does not depend on
// the rollout's own outcome leaves the policy gradient unbiased either way; the fallback only
// decides how much variance it removes. The rate is logged as genac/malformed_rate.
//
// Shape legend:  B rows (one per rollout of the batch)

import type { Generation } from '../../envs/episode.ts';
import { Generator } from '../../model/generate.ts';
import type { Gpt } from '../../model/gpt.ts';
import type { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { GpuSampler } from '../../train/gpu-sampler.ts';
import { type Critique, parseCritique } from './value-digit.ts';

/** The Philox stream of the critic's draws (the trainer's rollout and evaluation samplers use 1 and 2). */
export const CRITIC_SAMPLER_STREAM = 3;
/** Salt of the critic's per-iteration seed, apart from the rollouts' (train/rl-context.ts STREAM). */
const CRITIC_SEED_SALT = 31;
/** The value of a malformed critique when no critique of the batch is well-formed. */
export const NO_CRITIQUE_VALUE = 0.5;

export interface CriticSamples {
  /** [B] the ids of each critic prompt. */
  promptIds: number[][];
  /** [B] what the critic wrote: ids (with <eos> when it ended so), log π_c at τ = 1, how it ended. */
  completions: Generation[];
  /** [B] each completion parsed. */
  critiques: Critique[];
  /** [B] the value each rollout's baseline takes: digit/10, or the fallback when malformed. */
  values: Float64Array;
  fallback: number;
  malformedRate: number;
}

/** Samples one critique per prompt, keyed by `rolloutIds`, with noise from (seed, iteration). */
export async function sampleCritiques(
  critic: Gpt,
  tokenizer: CharTokenizer,
  prompts: readonly string[],
  rolloutIds: ArrayLike<number>,
  o: { seed: number; iteration: number; budget: number },
): Promise<CriticSamples> {
  const promptIds = prompts.map((p) => tokenizer.encode(p, { specials: false }));
  const generator = new Generator(critic);
  let completions: Generation[];
  try {
    const sampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, CRITIC_SAMPLER_STREAM);
    sampler.reseed(o.seed, CRITIC_SEED_SALT, o.iteration);
    completions = await sampler.generate(
      promptIds,
      promptIds.map(() => o.budget),
      promptIds.map(() => []),
      Array.from(rolloutIds, (rolloutId) => ({ rolloutId, segment: 0 })),
    );
  } finally {
    generator.destroy();
  }
  const critiques = completions.map((c) => parseCritique(tokenizer.decode(c.ending === 'eos' ? c.ids.slice(0, -1) : c.ids), c.ending === 'eos'));
  const wellFormed = critiques.flatMap((c) => (c.ok ? [c.value] : []));
  const fallback = wellFormed.length > 0 ? wellFormed.reduce((a, b) => a + b, 0) / wellFormed.length : NO_CRITIQUE_VALUE;
  return {
    promptIds,
    completions,
    critiques,
    values: Float64Array.from(critiques, (c) => (c.ok ? c.value : fallback)),
    fallback,
    malformedRate: critiques.length > 0 ? 1 - wellFormed.length / critiques.length : 0,
  };
}
