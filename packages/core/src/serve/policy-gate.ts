// The served sampler while the served weights train (black-box training, docs/serve.md): sampler
// calls and policy updates take turns on the GPU, one at a time, so an update never runs under a
// sampler call's feet and a call never reads half-updated weights. A call waiting when an update
// starts runs after it, on the new policy: requests wait during the update rather than being served
// by a stale copy of the weights (which would need a second copy of the policy on the GPU).
// `version` counts the updates done, so each recorded turn can say which policy sampled it. After an
// update the Generator's KV cache is forgotten: cached keys and values belong to the weights that
// wrote them (docs/design.md §4.1).

import type { GeneratedRow, SamplingOptions } from '../model/generate.ts';
import type { ChunkSampler } from './batch-scheduler.ts';

/** What the gate needs of the Generator: sampling, and forgetting its cache when the weights change. */
export interface CachedSampler extends ChunkSampler {
  forgetCache(): void;
}

export class PolicyGate implements ChunkSampler {
  /** Policy updates done since serving started. */
  version = 0;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly sampler: CachedSampler) {}

  generate(contexts: readonly (readonly number[])[], budgets: readonly number[], options: SamplingOptions): Promise<GeneratedRow[]> {
    return this.exclusive(() => this.sampler.generate(contexts, budgets, options));
  }

  /** Runs `change` (which writes the weights) between sampler calls, then moves to the next version. */
  update<T>(change: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      try {
        return await change();
      } finally {
        // Even a failed update may have written some weights: the cache is no longer theirs.
        this.sampler.forgetCache();
        this.version++;
      }
    });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work);
    this.turn = run.catch(() => undefined);
    return run;
  }
}
