// What GenAC's advantages hand to its critic's training, for one iteration's batch: the critic's
// prompts and what it wrote, each rollout's Monte-Carlo target, and what the next iteration's critic
// prompts render as the actor's win rate. A class, so the training step can tell it from anything
// else the loop may carry.
//
// Shape legend:  B rows (one per rollout of the batch)

import type { ActorState } from './critic-prompt.ts';
import type { CriticSamples } from './critic-sampling.ts';

export class CriticBatch {
  constructor(
    /** [B] the actor's prompt of each rollout. */
    readonly actorPrompts: readonly string[],
    /** The actor as this batch's critic prompts rendered it. */
    readonly actor: ActorState,
    readonly samples: CriticSamples,
    /** [B] each row's prompt group. */
    readonly groupIds: ArrayLike<number>,
    /** [B] the Monte-Carlo value of each row's prompt: its group's mean reward. */
    readonly mc: Float64Array,
    /** Fraction of this batch's rollouts that succeeded: the next iteration's win rate. */
    readonly successRate: number,
  ) {}
}
