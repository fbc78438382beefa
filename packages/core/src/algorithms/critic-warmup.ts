// The critic-only phase at the start of RL that the critic methods share (PPO, SAO): the policy is
// left alone while the critic trains on the fixed policy's rollouts, because a critic that starts
// from the policy's weights is biased at first. VC-PPO (arXiv:2503.01491) calls this value
// pretraining and runs it until the value model has converged: here it lasts `rl.criticWarmupSteps`
// iterations, or ends sooner at the first batch whose critic explained variance (measured on the
// batch's values before its updates) reaches `rl.criticWarmupTarget`, whichever comes first; that
// batch already trains the policy. SAO runs a fixed 10-step warm-up (arXiv:2607.07508 §4.1).
// Leaves out: VC-PPO's pretraining on a separate corpus: the phase uses the RL prompts.

import type { Recipe } from '../recipe/schema.ts';
import type { UpdateContext } from './algorithm.ts';

/** Trainer state key: the iteration at which the target explained variance ended the phase. */
export const WARMUP_ENDED_AT = 'criticWarmupEndedAt';

/**
 * Whether iteration `iteration` is still critic-only. Records in `context.state` when the target is
 * reached, so a later batch whose explained variance dips does not restart the phase.
 */
export function inCriticWarmup(rl: Recipe['rl'], iteration: number, context?: UpdateContext): boolean {
  if (iteration >= rl.criticWarmupSteps) return false;
  if (rl.criticWarmupTarget >= 1 || !context) return true;
  const endedAt = context.state[WARMUP_ENDED_AT];
  if (typeof endedAt === 'number' && endedAt <= iteration) return false;
  const explained = context.metrics['critic/explained_var'];
  if (explained === undefined || !(explained >= rl.criticWarmupTarget)) return true;
  context.state[WARMUP_ENDED_AT] = iteration;
  return false;
}
