// KTO (Ethayarajh et al. 2024, "KTO: Model Alignment as Prospect Theoretic Optimization",
// arXiv:2402.01306; docs/algorithms/kto.md), as TRL computes it (huggingface/trl, kto_trainer.py
// `_compute_loss`): binary, unpaired feedback on single completions. A desirable completion's loss
// falls as its implicit reward r = Σ(ℓ − ℓ_ref) rises above the reference point z0, an undesirable
// one's as r falls below it; z0 is the clamped mean of r over mismatched prompt/completion pairs
// (row b's prompt with row b+1's completion), detached. The loss is the kernels' (rl/kto), recorded
// by the update step as the `kto` term.
//
// Models: the policy and the frozen reference, which is the SFT policy (π_ref of KTO's implicit
// reward). No critic, no groups: each completion is labelled on its own.
// Data: the policy's own rollouts labelled by the verifier (desirable iff the task reward is > 0;
// for addition, the exact sum), or, with kto.source = "file", TRL's unpaired JSONL rows
// (train/labelled-examples.ts), whose label is carried as reward 1 / 0. Either way the label reaches
// the loss as the sign of the advantage: +1 on a desirable row's action tokens, −1 on an undesirable
// one's (no whitening, which would move the sign).
// Departures: z0 uses the mismatched pairs' log-probs under the policy that scored the batch
// (π_old), not re-scored at every minibatch as TRL's per-batch forward does; at the first step of an
// iteration they coincide, and z0 carries no gradient either way. Pairs are formed over the whole
// iteration batch, before minibatches are drawn.
// Leaves out: TRL's weighting advice for unbalanced data (λ_D·n_D / λ_U·n_U in [1, 4/3]; the recipe's
// weights are taken as given), APO and other loss types of TRL's KTOTrainer, span-level KTO.
//
// Shape legend:  B rows · T positions

import type { LossTerm } from './algorithm.ts';
import { type AdvantageInputs, type AdvantageResult, type Algorithm, POLICY, REFERENCE } from './algorithm.ts';

export const kto: Algorithm = {
  name: 'kto',
  models: [POLICY, REFERENCE],
  scores: ['mismatched'],

  async advantages({ rows }: AdvantageInputs): Promise<AdvantageResult> {
    const { B, T, actionMask } = rows;
    const advantages = new Float32Array(B * T);
    let desirable = 0;
    for (let b = 0; b < B; b++) {
      let reward = 0;
      for (let t = 0; t < T; t++) reward += rows.rewards[b * T + t];
      const label = reward > 0 ? 1 : -1;
      if (label > 0) desirable++;
      for (let t = 0; t < T; t++) if (actionMask[b * T + t]) advantages[b * T + t] = label;
    }
    return { advantages, returns: new Float32Array(B * T), metrics: { 'rollout/desirable_frac': B > 0 ? desirable / B : 0 } };
  },

  updates({ rl, kto }) {
    const terms: LossTerm[] = [{ kind: 'kto', beta: kto.beta, desirableWeight: kto.desirableWeight, undesirableWeight: kto.undesirableWeight }];
    if (rl.klPlacement === 'loss') terms.push({ kind: 'kl', coef: rl.klCoef, estimator: rl.klEstimator });
    if (rl.entropyCoef > 0) terms.push({ kind: 'entropy', coef: rl.entropyCoef });
    return [{ model: 'policy', lr: rl.policyLr, terms }];
  },

  labelledFile: ({ kto }) => (kto.source === 'file' ? kto.file : undefined),
};
