// "Where did this token's advantage come from?" (docs/ui.md §14, linked views): a token picked in
// the completions table opens its GAE computation on that rollout's own logged numbers. The
// per-token rewards are rebuilt as the trainer places them (core/train/rl-iteration.ts: the task
// reward on the last action token, minus β·KL on every action token when KL is in the reward),
// the GAE kernel runs on them with the run's γ and λ, and the whitened result is compared with the
// advantage the run logged, using the iteration's logged mean and standard deviation.

import type { MetricsRecord } from '@horizon/core';
import { KL_ESTIMATORS, type KlEstimator, tokenKlRef } from '@horizon/kernels';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ReplaySample, RolloutGaeAnswer, RolloutGaeRequest } from '../engine/api.ts';
import { fmt } from './format.ts';
import { pieceOf } from './token-strip.ts';

interface RlRecipe {
  algorithm: string;
  gamma: number;
  lambda: number;
  klCoef: number;
  klPlacement: string;
  klEstimator: KlEstimator;
  whiten: boolean;
}

const rlOf = (recipe: Record<string, unknown>): RlRecipe | null => {
  const rl = recipe.rl as Partial<RlRecipe> | undefined;
  if (!rl || typeof rl.gamma !== 'number' || typeof rl.lambda !== 'number') return null;
  const klEstimator = rl.klEstimator ?? 'k1';
  if (!(KL_ESTIMATORS as readonly string[]).includes(klEstimator)) return null;
  return {
    algorithm: String(rl.algorithm ?? 'ppo'),
    gamma: rl.gamma,
    lambda: rl.lambda,
    klCoef: Number(rl.klCoef ?? 0),
    klPlacement: String(rl.klPlacement ?? 'reward'),
    klEstimator,
    whiten: rl.whiten !== false,
  };
};

/** The kernel's inputs for a logged rollout, or why it cannot be rebuilt. */
export function rolloutInputs(sample: ReplaySample, recipe: Record<string, unknown>): RolloutGaeRequest | string {
  const rl = rlOf(recipe);
  if (!rl) return 'The run’s recipe has no γ and λ.';
  if (rl.algorithm === 'kto') return 'KTO does not use GAE: every token of a rollout carries its label’s sign (+1 desirable, −1 undesirable).';
  if (rl.algorithm !== 'ppo')
    return `${rl.algorithm.toUpperCase()} does not use GAE: every token of a rollout gets its group-relative advantage (the rollout’s reward against the other rollouts of its prompt).`;
  const values = sample.channels.value;
  if (!values) return 'This rollout logged no critic values, so its GAE cannot be rebuilt.';
  const actionMask = Array.from(sample.roles, (r) => (r === 'a' ? 1 : 0));
  const last = actionMask.lastIndexOf(1);
  const kl = sample.channels.kl;
  const rewards = actionMask.map((m, t) => {
    if (!m) return 0;
    const penalty = rl.klPlacement === 'reward' && rl.klCoef > 0 && kl ? rl.klCoef * tokenKlRef(kl[t], 0, rl.klEstimator).value : 0;
    return (t === last ? sample.reward : 0) - penalty;
  });
  return { rewards, values: values.map((v, t) => (actionMask[t] ? v : 0)), actionMask, gamma: rl.gamma, lambda: rl.lambda };
}

const next = (mask: readonly number[], t: number) => {
  for (let u = t + 1; u < mask.length; u++) if (mask[u]) return u;
  return null;
};

export function TokenAdvantage(props: {
  sample: ReplaySample;
  index: number;
  recipe: Record<string, unknown>;
  records: readonly MetricsRecord[];
  compute: (request: RolloutGaeRequest) => Promise<RolloutGaeAnswer>;
  onClose: () => void;
}) {
  const { sample, index, recipe, records } = props;
  const inputs = rolloutInputs(sample, recipe);
  const [answer, setAnswer] = useState<RolloutGaeAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setAnswer(null);
    if (typeof inputs === 'string') return;
    props.compute(inputs).then(setAnswer, (e) => setError(String((e as Error)?.message ?? e)));
  }, [sample, recipe]);
  const logged = sample.channels.advantage?.[index];
  const row = records.find((r) => r.phase === 'rl' && r.step === sample.step);
  const mean = row?.metrics['rollout/advantage_mean'];
  const std = row?.metrics['rollout/advantage_std'];
  const rl = rlOf(recipe);
  const head = h(
    'div',
    { class: 'explain-head' },
    h('strong', null, `Advantage of token ${index} `),
    h('code', null, JSON.stringify(pieceOf(sample, index))),
    ` · rollout ${sample.rolloutId}, iteration ${sample.step}`,
    h('button', { type: 'button', class: 'dismiss', onClick: props.onClose, 'aria-label': 'Close the explanation' }, '×'),
  );
  if (typeof inputs === 'string')
    return h(
      'section',
      { class: 'explain', 'aria-label': 'Token advantage', 'data-testid': 'token-advantage' },
      head,
      h('p', null, inputs, logged !== undefined ? ` Logged A = ${fmt(logged)}.` : ''),
    );
  const t = index;
  const u = next(inputs.actionMask, t);
  const body = answer
    ? (() => {
        const A = answer.advantages[t];
        const whitened = rl?.whiten && mean !== undefined && std !== undefined && std > 0 ? (A - mean) / std : null;
        return [
          h(
            'p',
            { class: 'explain-eq', 'data-testid': 'explain-delta' },
            `δ${t} = r${t} + γ·V${u ?? '(end)'} − V${t} = ${fmt(inputs.rewards[t], 4)} + ${fmt(inputs.gamma, 2)} × ${fmt(u === null ? 0 : inputs.values[u], 4)} − ${fmt(inputs.values[t], 4)} = ${fmt(answer.deltas[t], 4)}`,
          ),
          h(
            'p',
            { class: 'explain-eq', 'data-testid': 'explain-advantage' },
            `A${t} = δ${t} + γλ·A${u ?? '(end)'} = ${fmt(answer.deltas[t], 4)} + ${fmt(inputs.gamma * inputs.lambda, 3)} × ${fmt(u === null ? 0 : answer.advantages[u], 4)} = ${fmt(A, 4)}`,
          ),
          whitened !== null
            ? h(
                'p',
                { class: 'explain-eq', 'data-testid': 'explain-whitened' },
                `whitened: (A${t} − mean) / std = (${fmt(A, 4)} − ${fmt(mean!, 4)}) / ${fmt(std!, 4)} ≈ ${fmt(whitened, 4)}; the run logged ${logged === undefined ? '—' : fmt(logged, 4)}`,
              )
            : h('p', { class: 'explain-eq' }, `The run logged A${t} = ${logged === undefined ? '—' : fmt(logged, 4)}.`),
          h(
            'p',
            { class: 'note' },
            `r${t} is ${t === inputs.actionMask.lastIndexOf(1) ? `the task reward ${fmt(sample.reward, 2)}` : '0 from the task'}${rl && rl.klPlacement === 'reward' && rl.klCoef > 0 ? ` minus β·KL (β = ${fmt(rl.klCoef, 3)}, ${rl.klEstimator})` : ''}; V is the critic's logged value. Computed by ${answer.computedOn === 'gpu' ? 'the GAE kernel on the GPU' : 'the float64 reference'}. `,
            'The mean and std are this iteration’s logged rollout/advantage_mean and rollout/advantage_std (before whitening, over the batch’s action tokens).',
            sample.done ? '' : ' This rollout was truncated: the trainer bootstraps from a value not in the log, so the numbers are approximate.',
          ),
        ];
      })()
    : h('p', { class: 'note' }, error ?? 'Computing…');
  return h('section', { class: 'explain', 'aria-label': 'Token advantage', 'data-testid': 'token-advantage' }, head, body);
}
