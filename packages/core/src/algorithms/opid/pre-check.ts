// The pre-check before OPID's RL (docs/algorithms/opid.md §5): does the SFT policy read its skills?
// On honest demonstrations it was not trained on (the task's SFT examples past the warm start's
// last), each scored with the skills its own log gives and routed as the recipe routes, Δ is
// measured on the demonstration's action tokens — the tokens a skill should make more likely. A
// mean Δ > 0 says the skill-carrying SFT took; Δ ≈ 0 says the policy ignores skill text, and RL's
// Δ would be noise. Both passes run through the same Scorer.contextLogp, so the two log-probs of a
// token differ only by the skill in its context.
//
// Shape legend:  N demonstrations · T positions

import type { Task } from '../../envs/tasks.ts';
import type { Gpt } from '../../model/gpt.ts';
import type { Recipe } from '../../recipe/schema.ts';
import { trainingLength } from '../../train/rows.ts';
import type { Scorer } from '../../train/scoring.ts';
import { multiTurnTokens, type SftCodec } from '../../train/sft.ts';
import { stepStartsOf } from './context-builder.ts';
import { criticalPoints } from './critical-points.ts';
import { demonstrationLog } from './execution-log.ts';
import { routeSteps } from './routing.ts';
import { type SkillRollout, skillLogprobs } from './skill-delta.ts';
import { parseSkills } from './skill-parser.ts';

export interface PreCheckResult {
  /** Mean Δ over the action tokens a skill scored. */
  meanDelta: number;
  /** Fraction of those tokens with Δ > 0. */
  positiveFraction: number;
  /** Action tokens a skill scored. */
  tokens: number;
  demonstrations: number;
}

export interface PreCheckInputs {
  scorer: Pick<Scorer, 'contextLogp'>;
  policy: Gpt;
  task: Task;
  codec: SftCodec & { padId: number; eosId: number };
  recipe: Recipe;
  /** How many demonstrations to score. */
  count: number;
  /** The first demonstration's index; default: the first the SFT warm start never drew (sft.steps × sft.batchSize). */
  firstIndex?: number;
}

/** Δ on honest demonstrations' action tokens under `policy`. */
export async function skillDeltaOnDemonstrations(inputs: PreCheckInputs): Promise<PreCheckResult> {
  const { recipe, codec, task } = inputs;
  if (inputs.count < 1) throw new RangeError(`the pre-check needs at least one demonstration, got ${inputs.count}`);
  const first = inputs.firstIndex ?? recipe.sft.steps * recipe.sft.batchSize;
  const rollouts: SkillRollout[] = [];
  for (let i = 0; i < inputs.count; i++) {
    const example = task.sftExample(recipe.seed, first + i);
    if (!example.turns) throw new RangeError(`the pre-check reads multi-turn demonstrations; task.env ${recipe.task.env} writes single-turn ones`);
    const { full, trains } = multiTurnTokens(example.turns, codec, codec.eosId);
    const actionMask = Uint8Array.from(full, (_, p) => (trains(p) ? 1 : 0));
    const log = demonstrationLog(example.turns);
    const starts = stepStartsOf(actionMask);
    const steps = routeSteps(starts.length, criticalPoints(log), parseSkills(log), recipe.opid.routing);
    rollouts.push({ tokens: full, responseStart: starts[0] ?? full.length, actionMask, steps });
  }
  // Without the skill: every demonstration as it is, in one pass.
  const N = rollouts.length;
  const T = trainingLength(Math.max(...rollouts.map((r) => r.tokens.length)), recipe.model.contextLength);
  const inputsIds = new Uint32Array(N * T).fill(codec.padId);
  const targets = new Uint32Array(N * T).fill(codec.padId);
  rollouts.forEach(({ tokens }, n) => {
    for (let t = 0; t + 1 < tokens.length && t < T; t++) {
      inputsIds[n * T + t] = tokens[t];
      targets[n * T + t] = tokens[t + 1];
    }
  });
  const plain = await inputs.scorer.contextLogp(inputs.policy, { B: N, T, inputs: inputsIds, targets }, recipe.rl.temperature);
  const { skillLogp, scored } = await skillLogprobs(rollouts, plain, T, {
    scorer: inputs.scorer,
    policy: inputs.policy,
    encode: (text) => codec.encode(text, { specials: false }),
    padId: codec.padId,
    temperature: recipe.rl.temperature,
    contextLength: recipe.model.contextLength,
    maxRows: N,
  });
  let tokens = 0;
  let positive = 0;
  let sum = 0;
  for (let i = 0; i < scored.length; i++) {
    if (!scored[i]) continue;
    const delta = skillLogp[i] - plain[i];
    tokens++;
    sum += delta;
    if (delta > 0) positive++;
  }
  return { meanDelta: tokens > 0 ? sum / tokens : 0, positiveFraction: tokens > 0 ? positive / tokens : 0, tokens, demonstrations: N };
}
