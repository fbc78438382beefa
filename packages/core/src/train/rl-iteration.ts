// One RL iteration, top to bottom: rollout → score → rewards → advantages (collect-and-score.ts) →
// updates (here) → metrics (iteration-metrics.ts). The method (algorithms/algorithm.ts) supplies the
// advantages and, per iteration, which models train on which loss terms; this loop names no method.
// Everything random is derived from (run seed, iteration), so an iteration replays exactly after a
// resume.
//
// Shape legend:  B rollouts (prompts × group size) · T training positions

import { actionCounts, lossScales } from '@horizon/kernels';
import { mixSeed } from '../envs/seeds.ts';
import { collectAndScore, type ScoredRollouts } from './collect-and-score.ts';
import { type IterationResult, iterationResult, type UpdatesDone } from './iteration-metrics.ts';
import { minibatch, minibatchRows } from './minibatch.ts';
import { type RlContext, STREAM } from './rl-context.ts';
import { truncatedIsAdvantages } from './rollout-mismatch.ts';
import { shuffled } from './shuffled.ts';
import { Stopwatch } from './stopwatch.ts';
import type { StepMetrics } from './update-steps.ts';
import { minibatchBounds } from './valid-rollouts.ts';

/** Runs iteration `iteration` (0-based) on training episodes starting at `cursor`. */
export async function rlIteration(ctx: RlContext, iteration: number, cursor: number): Promise<IterationResult> {
  const clock = new Stopwatch();
  const traffic = { ...ctx.scorer.gpu.stats };
  const policyLag = ctx.history?.age;
  const scored = await collectAndScore(ctx, iteration, cursor);
  clock.lap();
  const done = await update(ctx, iteration, scored);
  const updateSeconds = clock.lap();
  return iterationResult(ctx, scored, done, { updateSeconds, iterationSeconds: clock.total(), traffic, policyLag });
}

/**
 * 5. Updates: first the method's models on rows of their own, once (`trainOwnModels`: GenAC's
 *    generative critic); then epochs × minibatches over a fresh shuffle each epoch; on every minibatch each model the
 *    method trains this iteration takes one step, in the method's order. Every loss term of every
 *    minibatch is scaled by denominators of the whole batch (docs/algorithms/README.md §3). With
 *    nothing left to train (every rollout failed or was dropped) the iteration takes no step. A model
 *    may step more than once per minibatch (SAO's K critic updates). A minibatch's rows are copied out
 *    of the batch on the GPU by the first step on them and shared by the others.
 */
async function update(ctx: RlContext, iteration: number, scored: ScoredRollouts): Promise<UpdatesDone> {
  const { recipe, models } = ctx;
  const rl = recipe.rl;
  const { rows, scores, batch, advantages, returns, advantageMetrics } = scored;
  const declared = batch ? ctx.algorithm.updates(recipe, iteration, { metrics: advantageMetrics, state: ctx.methodState ?? {} }) : [];
  // A critic-only iteration keeps the method's other updates, in its order, and drops the policy's.
  const updates = ctx.policyFrozen ? declared.filter((u) => u.model !== 'policy') : declared;
  // Models on rows of their own (GenAC's generative critic) step first, once (algorithm.ts).
  const ownMetrics =
    batch && ctx.algorithm.trainOwnModels
      ? await ctx.algorithm.trainOwnModels({
          gpu: ctx.scorer.gpu,
          recipe,
          iteration,
          models,
          ownTraining: scored.ownTraining,
          state: ctx.methodState ?? {},
        })
      : undefined;
  // Truncated importance sampling weights the PPO-clip loss, i.e. its advantages (rollout-mismatch.ts).
  const tis =
    rl.tis > 0 && updates.some((u) => u.terms.some((term) => term.kind === 'ppo-clip'))
      ? truncatedIsAdvantages(advantages, scores.oldLogp, rows.rolloutLogp, rows.actionMask, rl.tis)
      : undefined;
  const stepAdvantages = tis?.advantages ?? advantages;
  const scales = lossScales(actionCounts(rows.actionMask, rows.B, rows.T), {
    mode: rl.lossAggregation,
    rolloutIds: rows.rolloutIds,
    constant: rl.maxNewTokens,
  });
  // What the minibatches copy their rows from that was not on the GPU yet.
  if (batch && updates.length > 0) {
    ctx.scorer.gpu.write(batch.scales, scales);
    if (tis) ctx.scorer.gpu.write(batch.advantages, tis.advantages);
  }
  const steps = updates.map(() => [] as StepMetrics[]);
  const stepSeconds = updates.map(() => 0);
  // A batch shrunk by drops need not divide into rl.minibatches: near-equal parts (valid-rollouts.ts).
  const bounds = minibatchBounds(rows.B, rl.minibatches);
  for (let epoch = 0; batch && epoch < rl.epochs && updates.length > 0; epoch++) {
    const order = shuffled(rows.B, mixSeed(recipe.seed, STREAM.shuffle, iteration, epoch));
    for (const [start, end] of bounds) {
      const indices = order.slice(start, end);
      const mb = minibatchRows(batch, indices, () => minibatch(rows, scores, stepAdvantages, returns, scales, indices));
      for (const [u, update] of updates.entries()) {
        const started = performance.now();
        const model = models.byName.get(update.model);
        const optimizer = models.optimizers.get(update.model);
        if (!model || !optimizer) throw new RangeError(`${ctx.algorithm.name} trains "${update.model}", which it does not declare as a trained model`);
        const options = { lr: update.lr, ...recipe.optim, gradClip: rl.gradClip, temperature: rl.temperature };
        if (model === models.byName.get('policy')) ctx.history?.beforePolicyStep();
        steps[u].push(await ctx.updates.step(model, optimizer, mb, update.terms, options));
        stepSeconds[u] += (performance.now() - started) / 1000;
      }
    }
  }
  return { updates, steps, stepSeconds, tisMetrics: tis?.metrics, ownMetrics };
}
