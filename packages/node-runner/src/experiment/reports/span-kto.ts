// Span-level KTO against its weighted-SFT baselines on the dialog-feedback environment, trained
// offline on one fixed log of the SFT policy's dialogues per seed (span-kto-measure.ts), as the
// implicit-feedback source trains (docs/algorithms/kto.md §5). An offline report (offline-report.ts).

import type { OfflineReport, OfflineSeed } from '../offline-report.ts';
import { measureSpanKto, SFT_POLICY_ARM, SPAN_KTO_DIALOG, SPAN_KTO_SIZES, type SpanKtoSeed } from '../span-kto-measure.ts';

const SOURCE = 'Qwen’s "Verification Horizon", its implicit-user-feedback part';
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const sizes = SPAN_KTO_SIZES;

export const spanKto: OfflineReport = {
  kind: 'offline',
  name: 'span-kto',
  question:
    'Trained offline on one log of the SFT policy’s dialogues labelled by a scripted user’s implicit feedback, does span-level KTO solve more held-out requests than reward-weighted SFT and SFT, and does dropping the rejected turns hurt?',
  design: [
    `**One log, five policies.** Per seed: a 1-layer, width-32 policy trained ${sizes.sftSteps} SFT steps × ${sizes.sftBatch} on scripted demonstrations (${SPAN_KTO_DIALOG.rounds} requests per dialogue, ${SPAN_KTO_DIALOG.maxRetries} retry, operands 0–${SPAN_KTO_DIALOG.maxOperand}); the scripted user’s rates fitted twice (from an even guess) so that this policy’s feedback has the source’s mix (20.0% negative, 3.5% positive, negatives 81.8% reliable); one log of ${sizes.logDialogues} of its dialogues sampled at τ = 1 and labelled per turn by the feedback verifier. Every method trains ${sizes.offlineSteps} steps (minibatches of ${sizes.minibatch} dialogues in one fixed order, five passes over the log, lr 3·10⁻⁴) from the same SFT weights on that log; the SFT policy itself is the fifth arm. Each policy then answers the same ${sizes.evalDialogues} held-out dialogues greedily, against the same user with the same fitted rates.`,
    '**The methods as the source has them.** Span-KTO: each labelled turn one preference unit against an EMA reference point of the batch’s span rewards, neutral turns kept as language modelling, β = 0.01, λ = 1, α = 0.9 (α is undisclosed; docs/algorithms/kto.md §5). RW-SFT: SFT with one weight per label; the source’s best is w_pos 1.2, w_neu 1, w_neg 0.8, and its ablation drops the rejected turns with w_neg = 0. SFT: every assistant turn of the log, the rejected ones included.',
    '**Metrics.** Solve rate: the share of requests whose last answer (after any retry) is right. Per-turn accuracy, the retry ratio (turns answering a request the user asked again) and the share of rejected turns are shown beside it. The source measures SWE-bench resolve rates and, on unresolved instances, behaviour scores (inefficiency +34.5%); the retry ratio stands in for the second.',
    '**Left out, and why.** The source’s online rounds (new logs from the updated policy), its w_neg 0.5 and 0.6, the split of negatives by reason beyond execution/intent, and a larger model. One round and four methods fit the budget; every seed of this miniature takes about 5 minutes here.',
  ],
  seeds: [1, 2, 3],
  arms: [
    { name: SFT_POLICY_ARM, what: 'the SFT policy every method starts from, untrained on the log' },
    { name: 'span-kto', what: 'span-level KTO (β 0.01, λ 1, α 0.9): rejected turns down, thanked ones up, neutral as language modelling' },
    { name: 'rw-sft-0.8', what: 'reward-weighted SFT, w_pos 1.2, w_neu 1, w_neg 0.8 (the source’s best)' },
    { name: 'sft', what: 'SFT on the whole log, rejected turns included' },
    { name: 'rw-sft-0', what: 'reward-weighted SFT with the rejected turns dropped (w_neg 0)' },
  ],
  metrics: [
    { name: 'solveRate', label: 'solve rate' },
    { name: 'accuracy', label: 'per-turn accuracy' },
    { name: 'retryRatio', label: 'retry ratio' },
    { name: 'negative', label: 'rejected turns' },
  ],
  comparisons: [
    {
      arm: 'span-kto',
      against: 'rw-sft-0.8',
      metric: 'solveRate',
      direction: 'higher',
      claim: `Span-KTO, which pushes the rejected turns down against a reference point, beats the best reward-weighted SFT (${SOURCE}: SWE-bench Verified 55.2 → 59.8).`,
    },
    {
      arm: 'rw-sft-0.8',
      against: 'sft',
      metric: 'solveRate',
      direction: 'higher',
      claim: `Down-weighting the rejected turns (RW-SFT, w_neg 0.8) beats SFT on the whole log (${SOURCE}: 44.4% vs 41.8%, three SWE-bench variants).`,
    },
    {
      arm: 'sft',
      against: 'rw-sft-0',
      metric: 'solveRate',
      direction: 'higher',
      claim: `Dropping the rejected turns altogether hurts: RW-SFT at w_neg 0 does worse than SFT on everything (${SOURCE}: 37.2% vs 41.8%).`,
    },
    {
      arm: 'span-kto',
      against: SFT_POLICY_ARM,
      metric: 'retryRatio',
      direction: 'lower',
      claim: `Span-KTO makes the user ask again less often than the policy it starts from (${SOURCE}: its largest gain on unresolved instances is the inefficiency score, +34.5%).`,
    },
  ],
  minutes: 20,
  async measure(gpu, seed) {
    const measured = await measureSpanKto(gpu, seed);
    return { arms: measured.arms, details: { log: measured.log, losses: measured.losses } };
  },
  describeSeed(seed: OfflineSeed) {
    const { log, losses } = seed.details as Pick<SpanKtoSeed, 'log' | 'losses'>;
    const { mix, rates } = log;
    return [
      `the SFT policy at τ = 1: per-turn accuracy ${pct(mix.accuracy)}; the user’s fitted rates P(thanks | right) ${rates.positiveIfRight.toFixed(4)}, P(rejection | wrong) ${rates.negativeIfWrong.toFixed(4)}, flip ${rates.flip.toFixed(4)}`,
      `its log: ${mix.turns} assistant turns, ${pct(mix.neutral)} neutral, ${pct(mix.negative)} rejected (${pct(mix.negativeExecution)} a wrong number, ${pct(mix.negativeIntent)} no number or an earlier answer), ${pct(mix.positive)} thanked; rejections ${pct(mix.negativeReliability)} reliable; retry ratio ${pct(mix.retryRatio)}`,
      `minibatch loss at the first → last offline step: ${Object.entries(losses)
        .map(([name, l]) => `${name} ${l.first.toFixed(4)} → ${l.last.toFixed(4)}`)
        .join(', ')} (minibatches differ, so these are not a curve)`,
    ];
  },
  fidelity: true,
};
