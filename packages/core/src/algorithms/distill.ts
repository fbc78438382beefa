// On-policy distillation (docs/algorithms/distillation.md §1): the student samples, its teachers —
// the frozen policies of other runs — score every sampled token, and the per-token sampled reverse
// KL k_t = ℓ^S_t − ℓ^T_t trains the student towards them, with no discounting (Thinking Machines,
// "On-Policy Distillation"). With several teachers each prompt is scored by the expert its task tag
// is routed to (distill.route, train/teachers.ts), so one student merges experts of different skills.
//
// Two forms, by `distill.mode`:
//   advantage (default, slime's `apply_opd_kl_to_advantages` with base advantage 0): Â_t = −λ·k_t from
//     the scoring snapshot, fed to the same PPO-clip surrogate every method here trains with;
//   loss: a term λ·agg(½(ℓ_θ − ℓ^T)²) recomputed on every step, whose gradient on-policy equals the
//     reverse KL's (E_π[(ℓ − ℓ^T)∇ℓ] = ∇KL(π‖π_T)); the advantage is then 0 and no surrogate is trained.
// Follows: THUDM/slime (on-policy-distillation docs, `apply_opd_kl_to_advantages`, λ_opd = 1 by
// default); GLM-5's cross-stage distillation uses the same sg[ℓ^T − ℓ^S] advantage.
// Leaves out: the task reward (pure distillation: rewards are logged, never trained on), whitening
// (the OPD term is added after any normalization in slime, and whitening would blow a near-zero KL up
// to unit variance), GKD's full-vocabulary divergence, and sub-batching per teacher (each teacher
// scores the whole batch and each row keeps its own teacher's log-probs: one extra forward per teacher).
//
// Shape legend:  B rows · T positions

import { opdAdvantages } from '@horizon/kernels';
import {
  type AdvantageInputs,
  type AdvantageResult,
  type Algorithm,
  type LossTerm,
  type ModelDeclaration,
  maskedStats,
  POLICY,
  REFERENCE,
} from './algorithm.ts';
import { clippedPolicyUpdate } from './clipped-policy.ts';

/** Stands for the run's teachers, which the front end supplies; frozen and never checkpointed. */
const TEACHERS: ModelDeclaration = { name: 'teacher', role: 'teacher', trained: false };

export const distill: Algorithm = {
  name: 'distill',
  models: [POLICY, REFERENCE, TEACHERS],
  scores: ['teacherLogp'],

  async advantages({ gpu, rows, scores, recipe }: AdvantageInputs): Promise<AdvantageResult> {
    const { B, T, actionMask } = rows;
    const teacherLogp = scores.teacherLogp;
    if (!teacherLogp) throw new Error('distill: the batch was scored without teachers');
    const reverseKl = maskedStats(
      Float32Array.from(scores.oldLogp, (l, i) => l - teacherLogp[i]),
      actionMask,
    );
    const zeros = new Float32Array(B * T);
    const advantages =
      recipe.distill.mode === 'advantage'
        ? (await opdAdvantages(gpu, { studentLogp: scores.oldLogp, teacherLogp, mask: actionMask }, { B, T, coef: recipe.distill.coef })).advantages
        : zeros;
    const raw = maskedStats(advantages, actionMask);
    return {
      advantages,
      returns: zeros,
      metrics: { 'rollout/advantage_mean': raw.mean, 'rollout/advantage_std': raw.std, 'policy/distill_reverse_kl': reverseKl.mean },
    };
  },

  updates({ rl, distill: d }) {
    if (d.mode === 'advantage') return [clippedPolicyUpdate(rl)];
    // The loss form: the distillation term first (it writes the gradient), then KL and entropy as usual.
    const [, ...rest] = clippedPolicyUpdate(rl).terms;
    const terms: LossTerm[] = [{ kind: 'distill', coef: d.coef }, ...rest];
    return [{ model: 'policy', lr: rl.policyLr, terms }];
  },
};
