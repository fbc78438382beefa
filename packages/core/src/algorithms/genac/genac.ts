// GenAC, generative actor-critic, in miniature: PPO whose critic is a language model. Given the
// actor's prompt, its size and its current win rate (critic-prompt.ts), the critic writes a short
// reasoning, then a value digit 0–10 (value-digit.ts); digit/10 is the rollout's baseline, and the
// actor's advantage is its return minus it (policy-advantages.ts), under PPO's clipped surrogate.
// The critic trains in two steps as in the paper — SFT on critic data from a stronger source (here
// exact Monte-Carlo values: each prompt's mean reward over its rl.groupSize rollouts, written with a
// scripted reasoning), then REINFORCE against the Monte-Carlo values with the actor frozen — and
// keeps a REINFORCE step per iteration once PPO trains the actor (critic-training.ts).
//
// Models: the policy, the frozen reference (the KL), and the generative critic, a GPT of its own
// over the task's vocabulary extended with its characters (critic-vocabulary.ts). The critic trains
// on its own text, not on the policy's rows, so it steps in `trainOwnModels` before the loop's
// minibatch updates; the loop's updates are the policy's alone, and none during the critic's phases.
// Every critique is written into its rollout's `meta.genac` for the views (samples.jsonl).
//
// Leaves out: the paper's per-token values (one value per rollout, from the prompt: see
// policy-advantages.ts), a stronger model's written critiques (scripted here), and any task but
// the arithmetic ones, whose prompts the scripted reasoning reads (recipe-checks.ts).
// Equations: docs/algorithms/genac.md.
//
// Shape legend:  B rows (one per rollout) · T positions

import type { JsonValue } from '../../envs/environment.ts';
import { isSuccess } from '../../train/evaluate.ts';
import type { AdvantageInputs, AdvantageResult, Algorithm, ModelDeclaration } from '../algorithm.ts';
import { maskedStats, POLICY, REFERENCE } from '../algorithm.ts';
import { clippedPolicyUpdate } from '../clipped-policy.ts';
import { CriticBatch } from './critic-batch.ts';
import { renderCriticPrompt } from './critic-prompt.ts';
import { sampleCritiques } from './critic-sampling.ts';
import { monteCarloValues } from './critic-targets.ts';
import { GENERATIVE_CRITIC_NAME, genacPhase, trainGenerativeCritic, WIN_RATE_STATE } from './critic-training.ts';
import { criticTokenizer } from './critic-vocabulary.ts';
import { baselineAdvantages, whitened } from './policy-advantages.ts';

export const GENERATIVE_CRITIC: ModelDeclaration = { name: GENERATIVE_CRITIC_NAME, role: 'generative-critic', trained: true };

export const genac: Algorithm = {
  name: 'genac',
  models: [POLICY, REFERENCE, GENERATIVE_CRITIC],
  scores: [],
  // The critic's Monte-Carlo targets average each prompt's group: a group of one has no estimate.
  grouped: true,
  advantages: genacAdvantages,
  updates: ({ rl, genac: g }, iteration) => (genacPhase(g, iteration) === 'ppo' ? [clippedPolicyUpdate(rl)] : []),
  trainOwnModels: trainGenerativeCritic,
};

async function genacAdvantages({ rows, tokenRewards, recipe, models, samples, iteration, state }: AdvantageInputs): Promise<AdvantageResult> {
  const critic = models?.get(GENERATIVE_CRITIC_NAME);
  if (!critic || !samples || iteration === undefined)
    throw new RangeError("genac's advantages need its critic, the batch's rollouts and the iteration, which this caller did not pass");
  const { layers, width } = recipe.model.policy;
  const saved = state?.[WIN_RATE_STATE];
  const actor = { layers, width, winRate: typeof saved === 'number' ? saved : undefined };
  const actorPrompts = samples.map((s) => s.prompt);
  const prompts = actorPrompts.map((p) => renderCriticPrompt(p, actor));
  const sampled = await sampleCritiques(critic, criticTokenizer(recipe.task), prompts, rows.rolloutIds, {
    seed: recipe.seed,
    iteration,
    budget: recipe.genac.criticTokens,
  });
  const mc = monteCarloValues(
    rows.groupIds,
    samples.map((s) => s.reward),
  );
  for (const [b, sample] of samples.entries()) {
    const q = sampled.critiques[b];
    const critique: Record<string, JsonValue> = { prompt: prompts[b], reasoning: q.reasoning, value: sampled.values[b], mc: mc[b] };
    if (q.ok) critique.digit = q.digit;
    else critique.malformed = q.reason;
    sample.meta.genac = critique;
  }
  const raw = baselineAdvantages(rows, tokenRewards, sampled.values, recipe.rl.gamma);
  const rawStats = maskedStats(raw, rows.actionMask);
  const valueMean = sampled.values.reduce((a, v) => a + v, 0) / Math.max(1, rows.B);
  const valueError = sampled.values.reduce((a, v, b) => a + Math.abs(v - mc[b]), 0) / Math.max(1, rows.B);
  const successRate = samples.filter(isSuccess).length / Math.max(1, samples.length);
  return {
    advantages: recipe.rl.whiten ? whitened(raw, rows.actionMask) : raw,
    returns: new Float32Array(rows.B * rows.T),
    ownTraining: new CriticBatch(actorPrompts, actor, sampled, rows.groupIds, mc, successRate),
    metrics: {
      'rollout/advantage_mean': rawStats.mean,
      'rollout/advantage_std': rawStats.std,
      'genac/malformed_rate': sampled.malformedRate,
      'genac/value_mean': valueMean,
      'genac/value_error': valueError,
      'genac/fallback_value': sampled.fallback,
    },
  };
}
