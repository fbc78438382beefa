// A scored batch on the GPU: every [B, T] array that the method's advantages and the update steps
// read, written once per iteration where it is made — the rows' tokens, mask and log π_roll when
// the batch is scored, log π_old, log π_ref and V by the scoring passes themselves, the advantages
// and critic targets by the method's kernels, the aggregation scales before the updates. Minibatch
// rows are then copied out of these on the GPU (train/update-steps.ts), so nothing of the batch is
// uploaded again per minibatch. One set per (B, T), kept by the Scorer and reused by later batches
// of that shape: its contents are the last scored batch's.
//
// Shape legend:  B rows · T positions · P partial sums of a whitening reduction

import { type Gpu, partialCount, type Tensor } from '@horizon/kernels';

export class BatchTensors {
  readonly inputs: Tensor; // [B, T] u32 token fed at t
  readonly targets: Tensor; // [B, T] u32 token predicted at t
  readonly mask: Tensor; // [B, T] u32 action tokens
  readonly rolloutLogp: Tensor; // [B, T] log π_roll of the sampled targets
  readonly oldLogp: Tensor; // [B, T] log π_old at scoring
  readonly refLogp: Tensor; // [B, T] log π_ref at scoring
  readonly values: Tensor; // [B, T] critic values at scoring (written when the method scores `values`)
  readonly teacherLogp: Tensor; // [B, T] each row's teacher's log-probs (written for `teacherLogp`)
  readonly scales: Tensor; // [B] batch-wide aggregation scales
  readonly advantages: Tensor; // [B, T] what the policy trains on (whitened if the recipe says so)
  readonly returns: Tensor; // [B, T] critic targets
  // The advantage kernels' own inputs and scratch.
  readonly tokenRewards: Tensor; // [B, T] task rewards plus KL shaping
  readonly rawAdvantages: Tensor; // [B, T] advantages before whitening
  readonly bootstrap: Tensor; // [B] V after a truncated row's last token
  readonly lambdas: Tensor; // [B, 2] (λ, λ_critic)
  readonly info: Tensor; // [B, 2] u32 (terminal, tokensAfter)
  readonly rolloutRewards: Tensor; // [B] one scalar reward per rollout (group methods)
  readonly groupIds: Tensor; // [B] u32
  readonly rolloutAdvantages: Tensor; // [B] one advantage per rollout (group methods)
  readonly whitenPartials: Tensor; // [2, P]
  readonly whitenStats: Tensor; // [6] Σmx, n, Σd, Σd², mean, variance
  private readonly owned: Tensor[] = [];

  constructor(
    private readonly gpu: Gpu,
    readonly B: number,
    readonly T: number,
  ) {
    const own = (tensor: Tensor) => {
      this.owned.push(tensor);
      return tensor;
    };
    const f = (shape: number[], name: string) => own(gpu.tensor(shape, 'f32', `batch.${name}[${B}x${T}]`));
    const u = (shape: number[], name: string) => own(gpu.tensor(shape, 'u32', `batch.${name}[${B}x${T}]`));
    this.inputs = u([B, T], 'inputs');
    this.targets = u([B, T], 'targets');
    this.mask = u([B, T], 'mask');
    this.rolloutLogp = f([B, T], 'rolloutLogp');
    this.oldLogp = f([B, T], 'oldLogp');
    this.refLogp = f([B, T], 'refLogp');
    this.values = f([B, T], 'values');
    this.teacherLogp = f([B, T], 'teacherLogp');
    this.scales = f([B], 'scales');
    this.advantages = f([B, T], 'advantages');
    this.returns = f([B, T], 'returns');
    this.tokenRewards = f([B, T], 'tokenRewards');
    this.rawAdvantages = f([B, T], 'rawAdvantages');
    this.bootstrap = f([B], 'bootstrap');
    this.lambdas = f([B, 2], 'lambdas');
    this.info = u([B, 2], 'info');
    this.rolloutRewards = f([B], 'rolloutRewards');
    this.groupIds = u([B], 'groupIds');
    this.rolloutAdvantages = f([B], 'rolloutAdvantages');
    this.whitenPartials = f([2 * partialCount(gpu, B * T)], 'whitenPartials');
    this.whitenStats = f([6], 'whitenStats');
  }

  destroy(): void {
    for (const tensor of this.owned) this.gpu.destroy(tensor);
    this.owned.length = 0;
  }
}
