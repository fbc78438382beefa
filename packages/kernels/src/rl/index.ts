// The RL kernels: each family has a launcher (`recordX`, for use inside one training-step encoder),
// a host API (plain typed arrays in and out, for tests, docs, notebooks and the browser
// walkthroughs) and a float64 reference written from the math.

export { aggregateRef } from './aggregate/aggregate.ref.ts';
export { aggregate, recordAggregate } from './aggregate/aggregate.ts';
export { type AggregationOptions, actionCounts, LOSS_AGGREGATIONS, type LossAggregation, lossScales } from './aggregate/scales.ts';
export { partialCount, partialsSize } from './common/reduce.ts';
export { opdRef, opidRef } from './distill/distill.ref.ts';
export { opdAdvantages, opidAdvantages, recordDistill } from './distill/distill.ts';
export { gaeRef } from './gae/gae.ref.ts';
export { defaultGaeVariant, type GaeInputs, type GaeResult, gae, gaeSampleParams, lengthAdaptiveLambda, placeOutcomeRewards, recordGae } from './gae/gae.ts';
export type { GaeVariant } from './gae/gae.wgsl.ts';
export { GRPO_EPS, type GroupEstimator, groupBaselinesRef } from './group-baselines/group-baselines.ref.ts';
export { groupBaselines, recordBroadcastAdvantages, recordGroupBaselines } from './group-baselines/group-baselines.ts';
export { KL_ESTIMATORS, type KlEstimator, klRef, tokenKlRef } from './kl/kl.ref.ts';
export { KL_METRICS, kl, recordKl } from './kl/kl.ts';
export { type KtoParams, ktoRef, logistic } from './kto/kto.ref.ts';
export { type KtoResult, kto, ktoMismatchedPairs, recordKto } from './kto/kto.ts';
export { buildSpans, buildSpansFromIds, type SpanKtoParams, type Spans, spanKtoRef } from './kto/span-kto.ref.ts';
export { packSpans, recordSpanKto, type SpanKtoResult, spanKto } from './kto/span-kto.ts';
export { type PolicyLossKind, type PolicyLossParams, policyLossRef, tokenPolicyLossRef } from './policy-loss/policy-loss.ref.ts';
export { type PolicyLossResult, policyLoss, policyLossMetricCount, recordPolicyLoss } from './policy-loss/policy-loss.ts';
export { valueLossRef } from './value-loss/value-loss.ref.ts';
export { recordValueLoss, VALUE_LOSS_METRICS, valueLoss } from './value-loss/value-loss.ts';
export { whitenRef } from './whiten/whiten.ref.ts';
export { recordWhiten, WHITEN_EPS, whiten } from './whiten/whiten.ts';
