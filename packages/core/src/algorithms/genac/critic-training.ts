// GenAC's critic training, one iteration at a time, in the paper's order:
//
//   1. SFT  (the first genac.sftIterations iterations, the actor frozen): genac.sftSteps steps of
//      cross-entropy on one example per prompt of the batch — the critic prompt, then the scripted
//      reasoning and round(10·MC) (critic-data.ts);
//   2. REINFORCE (the next genac.reinforceIterations, the actor still frozen): one step on what the
//      critic wrote this iteration, −Σ s·A·log π_c with A its group-centred reward (critic-targets.ts);
//   3. afterwards PPO trains the actor on the critic's values, and the critic keeps its one REINFORCE
//      step per iteration so its values follow the actor as it changes.
//
// Both steps are the SFT stepper's (train/sft.ts): REINFORCE is its cross-entropy with each row
// weighted by its advantage. The step is exactly on-policy: it runs before any other update of the
// iteration, on the critic that wrote the samples, at τ = 1, one step per batch, so there is no
// ratio to clip. Only the critic and its optimizer are touched: the actor's weights do not move in
// steps 1–2 (genac.test.ts checks them bit for bit).
//
// Shape legend:  B rows (one per rollout) · T critic positions

import type { MetricName } from '../../metrics/glossary.ts';
import type { Recipe } from '../../recipe/schema.ts';
import { trainingLength } from '../../train/rows.ts';
import { type SftBatch, SftStepper, sftBatch } from '../../train/sft.ts';
import type { OwnTrainingInputs } from '../algorithm.ts';
import { CriticBatch } from './critic-batch.ts';
import { criticSftExample } from './critic-data.ts';
import { criticRewards, groupCentred } from './critic-targets.ts';
import { criticTokenizer } from './critic-vocabulary.ts';

/** The declared name of GenAC's critic (its checkpoint file is `genac-critic.safetensors`). */
export const GENERATIVE_CRITIC_NAME = 'genac-critic';
/** Where the next iteration's critic prompts read the actor's win rate from (UpdateContext.state). */
export const WIN_RATE_STATE = 'genacWinRate';

export type GenacPhase = 'sft' | 'reinforce' | 'ppo';

/** Which step iteration `iteration` (0-based) is in. */
export function genacPhase(genac: Recipe['genac'], iteration: number): GenacPhase {
  if (iteration < genac.sftIterations) return 'sft';
  return iteration < genac.sftIterations + genac.reinforceIterations ? 'reinforce' : 'ppo';
}

/** The critic's step(s) of one iteration; returns their metrics. */
export async function trainGenerativeCritic({
  gpu,
  recipe,
  iteration,
  models,
  ownTraining,
  state,
}: OwnTrainingInputs): Promise<Partial<Record<MetricName, number>>> {
  if (!(ownTraining instanceof CriticBatch)) throw new RangeError("genac's critic trains on its own batch, which this iteration's advantages did not produce");
  state[WIN_RATE_STATE] = ownTraining.successRate;
  const critic = models.byName.get(GENERATIVE_CRITIC_NAME);
  const optimizer = models.optimizers.get(GENERATIVE_CRITIC_NAME);
  if (!critic || !optimizer) throw new RangeError(`genac trains "${GENERATIVE_CRITIC_NAME}", which the run did not build with an optimizer`);
  const stepper = new SftStepper(gpu, critic, optimizer);
  const optim = { ...recipe.optim, gradClip: recipe.rl.gradClip };
  try {
    if (genacPhase(recipe.genac, iteration) === 'sft') {
      const batch = sftData(recipe, ownTraining);
      let last = { loss: Number.NaN, gradNorm: Number.NaN };
      for (let s = 0; s < recipe.genac.sftSteps; s++) last = await stepper.step(batch, { ...optim, lr: recipe.genac.sftLr });
      return { 'genac/sft_loss': last.loss, 'genac/critic_grad_norm': last.gradNorm };
    }
    const { batch, rewards } = reinforceRows(recipe, ownTraining);
    const { loss, gradNorm } = await stepper.step(batch, { ...optim, lr: recipe.genac.criticLr });
    return {
      'genac/critic_loss': loss,
      'genac/critic_reward': rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length),
      'genac/critic_grad_norm': gradNorm,
    };
  } finally {
    stepper.destroy();
  }
}

/** One SFT example per prompt group of the batch (its first row's prompt, the group's MC value). */
function sftData(recipe: Recipe, c: CriticBatch): SftBatch {
  const tokenizer = criticTokenizer(recipe.task);
  const seen = new Set<number>();
  const examples = [];
  for (let b = 0; b < c.actorPrompts.length; b++) {
    if (seen.has(c.groupIds[b])) continue;
    seen.add(c.groupIds[b]);
    examples.push(criticSftExample(c.actorPrompts[b], c.actor, c.mc[b]));
  }
  return sftBatch(examples, tokenizer, tokenizer.eosId, tokenizer.padId, recipe.model.contextLength);
}

/** The critic's own rows — its prompt, then what it wrote, training on the latter — weighted by their REINFORCE advantages. */
export function reinforceRows(recipe: Recipe, c: CriticBatch): { batch: SftBatch; rewards: Float64Array; advantages: Float64Array } {
  const { promptIds, completions, critiques } = c.samples;
  const padId = criticTokenizer(recipe.task).padId;
  const B = promptIds.length;
  const longest = Math.max(...promptIds.map((p, b) => p.length + completions[b].ids.length));
  const T = trainingLength(longest, recipe.model.contextLength);
  const batch: SftBatch = { B, T, inputs: new Uint32Array(B * T).fill(padId), targets: new Uint32Array(B * T).fill(padId), mask: new Uint32Array(B * T) };
  for (let b = 0; b < B; b++) {
    const full = [...promptIds[b], ...completions[b].ids];
    for (let t = 0; t + 1 < full.length; t++) {
      batch.inputs[b * T + t] = full[t];
      batch.targets[b * T + t] = full[t + 1];
      batch.mask[b * T + t] = t + 1 >= promptIds[b].length ? 1 : 0;
    }
  }
  const rewards = criticRewards(
    critiques.map((q) => (q.ok ? q.value : undefined)),
    c.mc,
  );
  const advantages = groupCentred(c.groupIds, rewards);
  batch.rowWeights = Float32Array.from(advantages);
  return { batch, rewards, advantages };
}
