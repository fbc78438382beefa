// OPID against GRPO on HiddenTestFS with the hack path closed (OPID, arXiv:2606.26790;
// docs/algorithms/opid.md). Both arms start from the same skill-carrying warm start per seed: the
// GRPO arm switches `rl.algorithm` only after it (an `rlSets` override), so the two differ in one
// thing, the w·Δ term OPID adds to GRPO's advantage, and the paired difference measures that term.
//
// The warm start is shorter than the preset's 400 × 16 (200 × 16 at lr 0.01) and the RL budget is
// 16 iterations of 2 prompts × 4 rollouts: a held-out evaluation of all 306 held-out agent episodes
// (up to 10 turns each) costs about as much as the iterations, and it is paid twice per run (after the warm start
// and at the end). The design paragraphs below say what this leaves out.

import type { Report } from '../report.ts';

const PAPER = 'OPID, arXiv:2606.26790';

export const opid: Report = {
  name: 'opid',
  question:
    'From one skill-carrying warm start, does adding the on-policy skill term w·Δ to GRPO’s advantage (skills mined from the policy’s own rollouts, routed per step) reach higher held-out success on HiddenTestFS than GRPO alone?',
  comparisons: [
    {
      arm: 'opid',
      against: 'grpo',
      direction: 'higher',
      claim: `GRPO plus on-policy skill distillation (the log-prob a sampled token gains from skills mined from the policy’s own rollouts, w = 10⁻³, as an extra advantage) beats GRPO on agentic tasks (${PAPER}).`,
    },
  ],
  arms: [
    {
      name: 'opid',
      label: 'OPID: GRPO + 10⁻³·Δ, skills routed per step (`opid.routing=route`), 2 prompts × 4, k3 KL in the loss',
      preset: 'hidden-opid',
      sets: [],
    },
    {
      name: 'grpo',
      label: 'GRPO from the same skill-carrying warm start (`rl.algorithm=grpo` after it), otherwise the same recipe',
      preset: 'hidden-opid',
      sets: [],
      rlSets: ['rl.algorithm=grpo'],
    },
  ],
  design: [
    '**One difference.** Both arms restore the same warm start per seed — hidden-opid’s SFT, whose odd demonstrations carry the skills their own logs give — and sample the same prompts with the same seeds; the GRPO arm sets `rl.algorithm=grpo` after the warm start, so it never sees skills in training and its advantage is OPID’s without the w·Δ term. Where a whole batch’s groups are all-fail or all-pass, GRPO’s advantage is zero and only the KL term moves its policy, while OPID still has w·Δ; Adam’s per-parameter normalisation makes even w = 10⁻³ take full-size steps then. The pairing makes the difference small and measurable rather than large.',
    '**Sizes.** The warm start is 200 SFT steps × 16 at lr 0.01 (the preset: 400 × 16 at 3·10⁻³), and RL is 16 iterations of 2 prompts × 4 rollouts at a 256-token context (the preset’s rollout shape, chosen for the smallest device’s memory). On this 2-core machine one held-out evaluation of all 306 held-out agent episodes (every one the task has) costs about as much as the 16 iterations, and every run pays two (after the warm start, and at the end), so a longer RL budget would have cost more seeds than the protocol allows to drop.',
    '**Left out, and why.** The paper’s other claims — that OPID is more sample-efficient (success at fewer iterations), that per-step routing beats concatenating all skills, and results across environments and model sizes — need either intermediate evaluations or more arms, each about 10 minutes per seed here; routing modes are compared on one warm start by the pre-check instead (docs/algorithms/opid.md §5). Weights other than the authors’ w = 10⁻³ are not run. OOD success (constants 10–19) is evaluated on 32 problems only, as a sanity figure.',
  ],
  seeds: [1, 2, 3],
  common: ['sft.steps=200', 'sft.batchSize=16', 'sft.lr=0.01', 'rl.iterations=16', 'eval.interval=16', 'eval.oodSize=32'],
  // Every held-out problem HiddenTestFS has: half of its 612 with constants 1–9 are held out.
  heldOutSize: 306,
  trainingMetrics: [
    { name: 'rollout/success', label: 'training success' },
    { name: 'policy/skill_delta', label: 'mean Δ over the tokens a skill scored' },
    { name: 'rollout/skill_scored_frac', label: 'fraction of action tokens scored with a skill' },
  ],
  budget: { runs: 6, minutes: 45 },
  fidelity: true,
};
