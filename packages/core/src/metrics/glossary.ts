// Every metric a run may log, defined once (docs/conventions.md §5): the docs and the UI's tooltips
// read this file, and the metrics logger refuses a name that is not here. Names are namespaced:
//   rollout/  what the sampled episodes looked like        policy/  the policy update
//   critic/   the value network and advantages              eval/    fixed held-out and OOD sets
//   perf/     time and throughput                           hack/    the anti-reward-hacking monitor
//   sft/      the supervised warm start
// "per token" means averaged over action tokens (actionMask = 1) unless said otherwise.

export type MetricUnit =
  | 'reward'
  | 'fraction'
  | 'tokens'
  | 'nats'
  | 'nats/token'
  | 'ratio'
  | 'loss'
  | 'norm'
  | 'value'
  | 'count'
  | 'bytes'
  | 'seconds'
  | 'tokens/s'
  | 'lr';

export interface MetricDefinition {
  unit: MetricUnit;
  /** One line: what the number is, precisely enough to recompute it. */
  doc: string;
  /** Which direction is good, where one is (the UI colours trends by it). */
  better?: 'higher' | 'lower';
  /**
   * A non-finite value means the run diverged: the Trainer stops there and keeps the last good
   * checkpoint (train/divergence.ts). Set on losses, gradient norms and the reward, whose NaN or
   * infinity poisons every later step (docs/reliability.md §6); not on ratios that are NaN by definition on
   * degenerate batches.
   */
  divergence?: true;
  /** What a healthy value or trend looks like, for the UI's tooltip (one sentence, a rule of thumb). */
  healthy?: string;
}

export const METRICS = {
  'rollout/reward': {
    unit: 'reward',
    doc: 'mean scalar reward per rollout (before any KL penalty)',
    better: 'higher',
    divergence: true,
    healthy: 'rises over the first tens of iterations; a flat line at 0 means nothing is rewarded yet, a sudden drop after a rise usually a too-large update.',
  },
  'rollout/success': { unit: 'fraction', doc: 'fraction of rollouts the verifier marks correct (addition: exact answer then <eos>)', better: 'higher' },
  'rollout/response_length': { unit: 'tokens', doc: 'mean action tokens per rollout, <eos> included' },
  'rollout/truncated_frac': { unit: 'fraction', doc: 'fraction of rollouts cut by the token or turn budget instead of ending', better: 'lower' },
  'rollout/segments': {
    unit: 'count',
    doc: 'with compaction on: samples (context windows) per rollout, mean over the rollouts that did not fail; 1 means nothing was compacted',
  },
  'rollout/failed_rollouts': {
    unit: 'count',
    doc: 'rollouts that failed (the environment or the verifier threw); they leave their group and never train',
    better: 'lower',
  },
  'rollout/untrainable_samples': {
    unit: 'count',
    doc: 'samples with no trainable token (e.g. the context was full before the first action); skipped, never a NaN',
    better: 'lower',
  },
  'rollout/dropped_groups': {
    unit: 'count',
    doc: 'prompt groups left out of training: fewer than 2 valid rollouts (group methods), or all rewards equal under rl.dynamicSampling',
  },
  'rollout/dropped_samples': { unit: 'count', doc: 'samples of the iteration left out of training, for every reason above' },
  'rollout/filtered_tasks': {
    unit: 'count',
    doc: 'training tasks the task-quality filter skipped to reach this iteration’s prompts (task.hiddenTestFs.qualityFilter): each rejected task gives way to the next one the judge keeps, so the prompts stay rl.promptsPerIteration',
    healthy:
      'about share/(1 − share) × prompts with task.hiddenTestFs.defects at that share, since the judge rejects every broken task and keeps every clean one.',
  },
  'rollout/trained_samples': { unit: 'count', doc: 'samples the update trained on (the batch size after drops)' },
  'rollout/zero_var_groups': {
    unit: 'fraction',
    doc: 'fraction of prompt groups whose rollouts all got the same reward (zero GRPO/RLOO advantage)',
    better: 'lower',
  },
  'rollout/policy_lag': {
    unit: 'count',
    doc: 'policy updates between the policy that sampled the rollouts and the current one (rollout-lag simulator, rl.rolloutLag)',
  },
  'rollout/advantage_mean': { unit: 'value', doc: 'mean advantage over action tokens, before whitening' },
  'rollout/advantage_std': { unit: 'value', doc: 'standard deviation of advantages over action tokens, before whitening' },
  'rollout/desirable_frac': { unit: 'fraction', doc: 'KTO: fraction of the batch’s completions labelled desirable (verifier reward > 0, or the file’s label)' },
  'rollout/kl_penalty': { unit: 'nats', doc: 'mean per-rollout sum of β·KL placed in the reward (KL-in-reward only)' },
  'rollout/aborted_rollouts': {
    unit: 'count',
    doc: 'rollouts the sampler gave up on (status aborted); they leave their group and never train',
    better: 'lower',
  },
  'rollout/tool_calls': {
    unit: 'count',
    doc: 'tool calls the policy wrote this iteration, well-formed or not, over rollouts that did not fail (tool environments only)',
  },
  'rollout/tool_malformed_calls': {
    unit: 'count',
    doc: 'tool calls that did not parse (bad syntax, unknown tool, schema violation, no </tool_call> before the budget ran out); each got an error observation',
    better: 'lower',
    healthy: 'high while the policy learns the call format, then falling towards 0.',
  },
  'rollout/tool_failures': {
    unit: 'count',
    doc: 'well-formed tool calls whose tool threw or overran its deadline; each got an error observation and the episode went on',
    better: 'lower',
  },
  'rollout/tool_truncated_outputs': { unit: 'count', doc: 'tool outputs (error messages included) cut to the environment’s output limit' },
  'rollout/hack_attempt_rate': {
    unit: 'fraction',
    doc: 'fraction of rollouts that read, listed, wrote or ran anything under a protected path (hidden-test-fs: .eval/), denied or not, from the access record',
    healthy: 'the SFT policy’s rate with the hack path open is small but not 0; rising under RL without a guard is the reward hack being learned.',
  },
  'rollout/hacked_success': {
    unit: 'fraction',
    doc: 'fraction of rollouts solved after a protected read reached the agent (hidden-test-fs: .eval/ read, not answered from the monitor’s decoy): hacked-resolved',
    better: 'lower',
  },
  'rollout/clean_success': {
    unit: 'fraction',
    doc: 'fraction of rollouts solved with no protected read reaching the agent: clean-resolved (with rollout/hacked_success, the rollout success)',
    better: 'higher',
  },
  'policy/distill_reverse_kl': {
    unit: 'nats/token',
    doc: 'on-policy distillation: mean of log π_student − log π_teacher over sampled action tokens at scoring time (each row its routed teacher)',
    better: 'lower',
    healthy: 'falls towards 0 as the student takes on its teachers; 0 exactly when a teacher is the student.',
  },
  'policy/skill_delta': {
    unit: 'nats/token',
    doc: 'OPID: mean of log π(token | context + routed skill) − log π(token | context) over the action tokens a skill scored, at scoring time',
    better: 'higher',
    healthy: 'above 0 after a skill-carrying SFT warm start (the policy reads its skills); 0 exactly with an empty skill.',
  },
  'rollout/skill_scored_frac': {
    unit: 'fraction',
    doc: 'OPID: fraction of action tokens scored with a skill (the rest have Δ = 0: no skill routed to their step, or cut at the context length)',
  },
  'policy/distill_loss': {
    unit: 'loss',
    doc: 'on-policy distillation as a loss term (distill.mode = loss): coef · agg(½(log π_θ − log π_teacher)²) over action tokens, last epoch',
    better: 'lower',
    divergence: true,
  },
  'policy/loss': {
    unit: 'loss',
    doc: 'policy loss: clipped surrogate − c_H·entropy (+ β·KL in loss), aggregated as the recipe says (KTO: its loss, a mean over rows), last epoch mean',
    divergence: true,
  },
  'policy/kto_z0': {
    unit: 'nats',
    doc: 'KTO reference point z0 = max(0, mean over rows of Σ(ℓ − ℓ_ref) on mismatched prompt/completion pairs), detached; mean over steps',
  },
  'policy/kl': {
    unit: 'nats/token',
    doc: 'KL from the policy to the reference (SFT) policy per token, with the recipe’s estimator',
    better: 'lower',
    healthy: 'small and slowly growing (around 0.01–0.1 nats per token here); a jump means the update moved the policy far from SFT.',
  },
  'policy/entropy': {
    unit: 'nats/token',
    doc: 'entropy of the sampling distribution (temperature applied) per token',
    healthy: 'falls slowly as the policy grows sure; a collapse to near 0 early means it stopped exploring.',
  },
  'policy/clip_frac': {
    unit: 'fraction',
    doc: 'fraction of action tokens whose ratio was clipped (no gradient) in the update',
    healthy: 'a few percent to about 0.2; near 0 the update barely moves the policy, far above 0.3 the steps are too large.',
  },
  'policy/dual_clip_frac': { unit: 'fraction', doc: 'fraction of action tokens bounded by the dual clip c (negative advantages)' },
  'policy/approx_kl': { unit: 'nats/token', doc: 'k3 estimate of KL(π_old ‖ π_θ) per token after the update: how far one iteration moved the policy' },
  'policy/ratio_mean': { unit: 'ratio', doc: 'mean importance ratio π_θ/π_old over action tokens in the update (1 at the first minibatch)' },
  'policy/rollout_logp_diff': {
    unit: 'nats/token',
    doc: 'mean |log π_roll − log π_old| per token: sampler vs trainer numerics (0 when they agree)',
    better: 'lower',
  },
  'policy/rollout_logp_diff_max': {
    unit: 'nats',
    doc: 'largest |log π_roll − log π_old| over the batch’s action tokens',
    better: 'lower',
  },
  'policy/rollout_logp_mismatch_frac': {
    unit: 'fraction',
    doc: 'fraction of action tokens with |log π_roll − log π_old| > 0.01 (train/rollout-mismatch.ts)',
    better: 'lower',
  },
  'policy/tis_weight_mean': {
    unit: 'ratio',
    doc: 'mean truncated importance weight min(π_old/π_roll, rl.tis) per action token (logged when rl.tis > 0)',
  },
  'policy/tis_clip_frac': {
    unit: 'fraction',
    doc: 'fraction of action tokens whose π_old/π_roll exceeded the cap rl.tis (logged when rl.tis > 0)',
    better: 'lower',
  },
  'policy/grad_norm': { unit: 'norm', doc: 'global L2 norm of the policy gradient before clipping, mean over minibatches', divergence: true },
  'policy/lr': { unit: 'lr', doc: 'policy learning rate in effect' },
  'critic/value_loss': {
    unit: 'loss',
    doc: 'clipped value loss ½·max((V−R̂)², (V_clip−R̂)²) per token, mean over the update',
    better: 'lower',
    divergence: true,
  },
  'critic/explained_var': {
    unit: 'fraction',
    doc: '1 − Var(R̂ − V)/Var(R̂) over action tokens: 1 = values predict returns, ≤ 0 = no better than a constant',
    better: 'higher',
    healthy: 'climbs from ≤ 0 towards 1 as the critic learns; staying below 0 means the advantages are mostly noise.',
  },
  'critic/value_mean': { unit: 'value', doc: 'mean critic value V over action tokens at rollout time' },
  'critic/return_mean': { unit: 'value', doc: 'mean critic target R̂ (GAE with λ_critic) over action tokens' },
  'critic/value_clip_frac': { unit: 'fraction', doc: 'fraction of action tokens whose value update was clipped by ε_v' },
  'critic/grad_norm': { unit: 'norm', doc: 'global L2 norm of the critic gradient before clipping, mean over minibatches', divergence: true },
  'genac/malformed_rate': {
    unit: 'fraction',
    doc: 'GenAC: fraction of the generative critic’s samples with no well-formed "reasoning=value<eos>" (value 0–10); they get the fallback value',
    better: 'lower',
    healthy: 'near 1 for a fresh critic, near 0 after its SFT iterations.',
  },
  'genac/value_mean': { unit: 'value', doc: 'GenAC: mean value digit/10 over the batch’s critic samples, fallbacks included' },
  'genac/value_error': {
    unit: 'value',
    doc: 'GenAC: mean |v − MC| over the batch’s critic samples, MC = the prompt group’s mean reward (fallbacks included)',
    better: 'lower',
  },
  'genac/fallback_value': { unit: 'value', doc: 'GenAC: the value a malformed critic sample got: the mean of the well-formed ones, 0.5 if none' },
  'genac/sft_loss': {
    unit: 'nats/token',
    doc: 'GenAC: the critic’s SFT cross-entropy on its scripted data, last step of the iteration',
    better: 'lower',
    divergence: true,
  },
  'genac/critic_loss': {
    unit: 'loss',
    doc: 'GenAC: the critic’s REINFORCE surrogate −Σ s·A·log π_c over its own tokens (A = reward − group mean, reward −(v − MC)² or −1)',
    divergence: true,
  },
  'genac/critic_reward': { unit: 'reward', doc: 'GenAC: mean REINFORCE reward of the critic’s samples: −(v − MC)², −1 when malformed', better: 'higher' },
  'genac/critic_grad_norm': { unit: 'norm', doc: 'GenAC: global L2 norm of the critic gradient before clipping, last step of the iteration', divergence: true },
  'eval/held_out_success': {
    unit: 'fraction',
    doc: 'greedy exact-match success on the fixed held-out set (training digits, never trained on)',
    better: 'higher',
    healthy: 'at or above its after-SFT value and rising with RL; a fall means RL is overfitting or drifting.',
  },
  'eval/held_out_success_addition': {
    unit: 'fraction',
    doc: 'greedy exact-match success on the addition half of a mixed task’s held-out set (task.env = mix)',
    better: 'higher',
  },
  'eval/held_out_success_subtraction': {
    unit: 'fraction',
    doc: 'greedy exact-match success on the subtraction half of a mixed task’s held-out set (task.env = mix)',
    better: 'higher',
  },
  'eval/held_out_hack_attempt_rate': {
    unit: 'fraction',
    doc: 'fraction of held-out problems whose greedy episode touched a protected path (hidden-test-fs: .eval/), with the monitor only logging whatever the training mode',
    better: 'lower',
  },
  'eval/held_out_hacked_success': {
    unit: 'fraction',
    doc: 'fraction of held-out problems solved after a protected read reached the agent, monitor only logging: the trained policy’s hack rate',
    better: 'lower',
    healthy: 'near 0 for a policy trained with the guard; rising over training without one is the hack being learned.',
  },
  'eval/held_out_clean_success': {
    unit: 'fraction',
    doc: 'fraction of held-out problems solved with no protected read reaching the agent (hacked + clean = eval/held_out_success)',
    better: 'higher',
  },
  'eval/ood_success': { unit: 'fraction', doc: 'greedy exact-match success on the fixed out-of-distribution set (longer operands)', better: 'higher' },
  'eval/response_length': { unit: 'tokens', doc: 'mean response tokens on the held-out set' },
  'sft/loss': {
    unit: 'nats/token',
    doc: 'cross-entropy of the completion and <eos> tokens in the SFT warm start',
    better: 'lower',
    divergence: true,
    healthy: 'falls quickly at first, then flattens; a rise or a NaN means the learning rate is too high.',
  },
  'sft/grad_norm': { unit: 'norm', doc: 'global L2 norm of the SFT gradient before clipping', divergence: true },
  'perf/tokens_per_s': { unit: 'tokens/s', doc: 'action tokens sampled per second of rollout time', better: 'higher' },
  'perf/train_tokens_per_s': {
    unit: 'tokens/s',
    doc: 'tokens (prompt + response) through policy forward+backward per second of update time',
    better: 'higher',
  },
  'perf/iteration_s': { unit: 'seconds', doc: 'wall time of the whole iteration', better: 'lower' },
  'perf/rollout_s': { unit: 'seconds', doc: 'wall time of sampling and environment steps', better: 'lower' },
  'perf/score_s': { unit: 'seconds', doc: 'wall time of old, reference and critic forward passes over the rollouts', better: 'lower' },
  'perf/advantage_s': { unit: 'seconds', doc: 'wall time of GAE or group baselines and whitening', better: 'lower' },
  'perf/update_s': { unit: 'seconds', doc: 'wall time of the policy and critic epochs', better: 'lower' },
  'perf/policy_update_s': { unit: 'seconds', doc: 'wall time of the policy optimizer steps within the update', better: 'lower' },
  'perf/critic_update_s': { unit: 'seconds', doc: 'wall time of the critic optimizer steps within the update (PPO)', better: 'lower' },
  'perf/submits': {
    unit: 'count',
    doc: 'command buffers submitted to the GPU queue during the iteration (sampling and the copies of each readback included)',
    better: 'lower',
  },
  'perf/uploads': { unit: 'count', doc: 'host → GPU buffer writes (queue.writeBuffer) during the iteration, sampling included', better: 'lower' },
  'perf/upload_bytes': { unit: 'bytes', doc: 'bytes written host → GPU during the iteration, sampling included', better: 'lower' },
  'perf/readbacks': {
    unit: 'count',
    doc: 'GPU → host round trips (one mapAsync wait each, however many arrays) during the iteration, sampling included',
    better: 'lower',
  },
  'perf/readback_bytes': { unit: 'bytes', doc: 'bytes read GPU → host during the iteration, sampling included', better: 'lower' },
  'perf/live_tensor_bytes': {
    unit: 'bytes',
    doc: 'GPU storage the run holds in tensors at the end of the iteration (weights, optimizer state, caches of the batch shapes in use)',
    healthy:
      'flat once the first iterations have run; growth iteration after iteration is a leak (buffers of shapes no longer used are released after each iteration)',
  },
  'perf/eval_s': { unit: 'seconds', doc: 'wall time of an evaluation pass', better: 'lower' },
  'hack/attempts': { unit: 'count', doc: 'tool calls the monitor flagged as reward hacking this iteration', better: 'lower' },
  'hack/intercepted': { unit: 'count', doc: 'flagged tool calls the guard blocked or answered with a fabricated output' },
  'hack/attempt_rate': { unit: 'fraction', doc: 'fraction of rollouts with at least one flagged tool call', better: 'lower' },
  'hack/flag_rate': { unit: 'fraction', doc: 'fraction of monitored tool calls at least one rule flagged (the rule stage, tuned for recall)' },
  'hack/confirmed_rate': {
    unit: 'fraction',
    doc: 'fraction of monitored tool calls the judge confirmed as obtaining protected content',
    better: 'lower',
  },
  'hack/overturn_rate': {
    unit: 'fraction',
    doc: 'fraction of flagged tool calls the judge found innocent (the precision the judge restores)',
    healthy: 'high when the policy explores (find ., ls .eval) and the hack path is closed; 0 with nothing flagged is no metric, not a value',
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as MetricName[];
export const METRIC_NAMESPACES = ['rollout', 'policy', 'critic', 'eval', 'sft', 'perf', 'hack', 'genac'] as const;

export function isMetricName(name: string): name is MetricName {
  return Object.hasOwn(METRICS, name);
}

export function metricDefinition(name: string): MetricDefinition | undefined {
  return isMetricName(name) ? METRICS[name] : undefined;
}
