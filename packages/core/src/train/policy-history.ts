// The rollout-lag simulator (recipe `rl.rolloutLag` = k): a ring buffer of the policy's past
// weights, so that an iteration's rollouts are sampled by the policy as it was k policy updates ago,
// as in an asynchronous pipeline whose rollout workers run behind the trainer (SAO, arXiv:2607.07508;
// docs/algorithms/sao-dis.md §3). π_roll is whatever sampled: `Sample.rolloutLogprobs` records it.
//
// Lag is counted in policy updates, i.e. optimizer steps of the policy: one iteration takes
// epochs × minibatches of them (none during a critic warm-up), so k updates are k iterations only with
// one epoch of one minibatch. Before each policy step the weights it is about to leave are copied
// into the ring; at rollout time the oldest kept copy, the policy of min(k, updates so far) updates
// ago, is swapped into the policy's own buffer for sampling and the current weights are put back
// after, so the sampler, its KV caches and its random streams are the lag-0 ones.
//
// Memory: k + 1 GPU buffers the size of the policy's flat parameters (k kept versions and the stash
// of the current weights while a past one samples), 4·P·(k + 1) bytes; no host copies except in
// checkpoints, which hold the kept versions as models `policy-lag-1` (newest) … `policy-lag-k`.
// Leaves out: real asynchrony (a trajectory sampled by several versions) and a staleness filter.
//
// Shape legend:  P flat parameters of the policy

import type { Gpu, Tensor } from '@horizon/kernels';
import type { Gpt } from '../model/gpt.ts';

/** The most past policies the trainer keeps; a larger `rl.rolloutLag` is refused by the recipe checks. */
export const MAX_ROLLOUT_LAG = 16;

/** The checkpoint model holding the policy of `age` updates ago. */
export const lagModelName = (age: number) => `policy-lag-${age}`;
/** Whether a model name is one of the kept past policies (lagModelName). */
export const isLagModelName = (name: string) => /^policy-lag-\d+$/.test(name);

export class PolicyHistory {
  /** Kept versions, oldest first; at most `lag`. */
  private readonly kept: Tensor[] = []; // each: [P] f32
  /** Buffers of versions that fell out of the ring, reused for the next copies. */
  private readonly spare: Tensor[] = [];
  private readonly stash: Tensor; // [P] f32, the current weights while a past version samples
  private readonly gpu: Gpu;

  constructor(
    readonly policy: Gpt,
    readonly lag: number,
  ) {
    if (!Number.isInteger(lag) || lag < 1 || lag > MAX_ROLLOUT_LAG)
      throw new RangeError(`rollout lag must be an integer in [1, ${MAX_ROLLOUT_LAG}], got ${lag}`);
    this.gpu = policy.gpu;
    this.stash = this.gpu.tensor([policy.layout.totalSize], 'f32', 'policy-history.stash');
  }

  /** Policy updates between the version that samples next and the current policy. */
  get age(): number {
    return this.kept.length;
  }

  /** Call just before each optimizer step of the policy: the weights it leaves become the newest past version. */
  beforePolicyStep(): void {
    const slot = this.kept.length === this.lag ? (this.kept.shift() as Tensor) : (this.spare.pop() ?? this.newBuffer());
    this.gpu.run((rec) => rec.copy(this.policy.params, slot));
    this.kept.push(slot);
  }

  /** Runs `sample` with the policy of `age` updates ago in the policy's buffer, then restores the current weights. */
  async sampleWith<R>(sample: () => Promise<R>): Promise<R> {
    const oldest = this.kept[0];
    if (!oldest) return sample();
    this.gpu.run((rec) => {
      rec.copy(this.policy.params, this.stash);
      rec.copy(oldest, this.policy.params);
    });
    try {
      return await sample();
    } finally {
      this.gpu.run((rec) => rec.copy(this.stash, this.policy.params));
    }
  }

  /** The kept versions for a checkpoint, by age: element 0 is the newest (1 update ago). */
  async save(): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const tensor of [...this.kept].reverse()) out.push((await this.gpu.read(tensor)) as Float32Array);
    return out;
  }

  /** Replaces the kept versions with `byAge` (as `save` returns them). */
  load(byAge: readonly Float32Array[]): void {
    if (byAge.length > this.lag) throw new RangeError(`a rollout lag of ${this.lag} keeps ${this.lag} past policies, the checkpoint holds ${byAge.length}`);
    this.spare.push(...this.kept.splice(0));
    for (const weights of [...byAge].reverse()) {
      if (weights.length !== this.policy.layout.totalSize)
        throw new RangeError(`a kept policy holds ${weights.length} values, the policy has ${this.policy.layout.totalSize}`);
      const slot = this.spare.pop() ?? this.newBuffer();
      this.gpu.write(slot, weights);
      this.kept.push(slot);
    }
  }

  destroy(): void {
    for (const tensor of [...this.kept, ...this.spare, this.stash]) this.gpu.destroy(tensor);
    this.kept.length = 0;
    this.spare.length = 0;
  }

  private newBuffer(): Tensor {
    return this.gpu.tensor([this.policy.layout.totalSize], 'f32', 'policy-history.version');
  }
}
