// One screen for the RL loop (docs/ui.md §13; the TensorFlow Playground / Transformer Explainer
// idea): prompt → rollouts → reward → advantages → update, each stage with the numbers of one
// iteration of the run on screen (the live run's latest as it trains), each linking to its detail
// view. A pulse runs along the stages when a new iteration arrives (not with reduced motion).

import type { MetricName, MetricsRecord } from '@horizon/core';
import { h } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { ReplaySample } from '../engine/api.ts';
import { fmt } from './format.ts';
import { channelExtent, TokenCard, type TokenInfo, TokenStrip } from './token-strip.ts';

export type LoopLink = { view: 'completions'; filter: string } | { view: 'dashboard' } | { view: 'gae' };

interface Stage {
  key: string;
  title: string;
  what: string;
  numbers: [string, string][];
  link: LoopLink;
  linkText: string;
}

const num = (row: MetricsRecord | undefined, name: MetricName, digits = 3): string => {
  const v = row?.metrics[name];
  return v === undefined ? '—' : fmt(v, digits);
};

/** The stages for iteration `step`, from its metrics row, its logged rollouts and the recipe. */
export function loopStages(step: number, records: readonly MetricsRecord[], samples: readonly ReplaySample[], recipe: Record<string, unknown>): Stage[] {
  const row = records.find((r) => r.phase === 'rl' && r.step === step);
  const rollouts = samples.filter((s) => s.phase === 'rl' && s.step === step);
  const rl = (recipe.rl ?? {}) as Record<string, unknown>;
  const algorithm = String(rl.algorithm ?? 'ppo');
  const prompts = Number(rl.promptsPerIteration ?? 0);
  const group = Number(rl.groupSize ?? 1);
  const first = rollouts[0];
  const critic = algorithm === 'ppo';
  return [
    {
      key: 'prompt',
      title: 'Prompt',
      what: `${prompts} prompts from the task${group > 1 ? `, each asked ${group} times` : ''}.`,
      numbers: [['e.g.', first ? first.prompt : '—']],
      link: { view: 'completions', filter: `rl:${step}` },
      linkText: 'the rollouts',
    },
    {
      key: 'rollouts',
      title: 'Rollouts',
      what: 'The policy samples an answer token by token.',
      numbers: [
        ['answer', first ? first.turns.map((t) => t.action).join(' ') : '—'],
        ['tokens', num(row, 'rollout/response_length', 2)],
        ['truncated', num(row, 'rollout/truncated_frac', 2)],
      ],
      link: { view: 'completions', filter: `rl:${step}` },
      linkText: 'token strips',
    },
    {
      key: 'reward',
      title: 'Reward',
      what: 'The verifier scores each answer: 1 for the exact sum, else 0.',
      numbers: [
        ['mean reward', num(row, 'rollout/reward')],
        ['success', num(row, 'rollout/success')],
        ...(first ? ([['this one', fmt(first.reward, 2)]] as [string, string][]) : []),
      ],
      link: { view: 'dashboard' },
      linkText: 'reward chart',
    },
    {
      key: 'advantages',
      title: 'Advantages',
      what: critic
        ? `GAE turns reward and the critic’s values into a per-token advantage (γ = ${rl.gamma}, λ = ${rl.lambda}).`
        : algorithm === 'kto'
          ? 'KTO: each answer is labelled desirable (reward above 0) or undesirable; its advantage is the label’s sign, ±1.'
          : `${algorithm.toUpperCase()}: each answer against the other answers to its prompt.`,
      numbers: [
        ['mean A', num(row, 'rollout/advantage_mean')],
        ['std A', num(row, 'rollout/advantage_std')],
        ...(critic ? ([['explained var', num(row, 'critic/explained_var')]] as [string, string][]) : []),
      ],
      link: critic ? { view: 'gae' } : { view: 'completions', filter: `rl:${step}` },
      linkText: critic ? 'GAE walkthrough' : 'advantages per token',
    },
    {
      key: 'update',
      title: 'Update',
      what: `${rl.epochs ?? '?'} epochs of clipped policy-gradient steps${critic ? ', and the critic regresses on the returns' : ''}.`,
      numbers: [
        ['KL', num(row, 'policy/kl', 4)],
        ['clip frac', num(row, 'policy/clip_frac')],
        ['entropy', num(row, 'policy/entropy')],
        ...(critic ? ([['value loss', num(row, 'critic/value_loss', 4)]] as [string, string][]) : []),
      ],
      link: { view: 'dashboard' },
      linkText: 'update charts',
    },
  ];
}

/** The iteration's logged rollouts, tokens coloured by their advantage: what stages 2–4 did to each answer. */
function IterationRollouts({ samples }: { samples: readonly ReplaySample[] }) {
  const [hover, setHover] = useState<TokenInfo | null>(null);
  const channel = samples.some((x) => x.channels.advantage) ? 'advantage' : null;
  const extent = useMemo(() => (channel ? channelExtent(samples, channel) : 1), [samples, channel]);
  if (samples.length === 0) return null;
  return h(
    'div',
    { class: 'loop-rollouts' },
    h('h3', null, `This iteration’s logged rollouts (${samples.length}), tokens coloured by advantage`),
    h(
      'ul',
      null,
      samples.map((x) =>
        h(
          'li',
          { key: x.rolloutId },
          channel ? h(TokenStrip, { sample: x, channel, extent, onHover: setHover }) : h('code', null, x.prompt),
          h('span', { class: `loop-reward ${x.reward > 0 ? 'good' : 'bad'}` }, ` reward ${fmt(x.reward, 2)} ${x.reward > 0 ? '✓' : '✗'}`),
        ),
      ),
    ),
    hover ? h(TokenCard, { info: hover }) : null,
  );
}

export function LoopOverview(props: {
  records: readonly MetricsRecord[];
  samples: readonly ReplaySample[];
  recipe: Record<string, unknown>;
  live: boolean;
  onLink: (link: LoopLink) => void;
}) {
  const steps = useMemo(() => props.records.filter((r) => r.phase === 'rl').map((r) => r.step), [props.records]);
  const [chosen, setChosen] = useState<number | null>(null);
  const latest = steps.at(-1);
  // Following the newest iteration unless the learner picked one.
  const step = chosen !== null && steps.includes(chosen) ? chosen : latest;
  if (step === undefined) {
    const sft = props.records.filter((r) => r.phase === 'sft').at(-1);
    return h(
      'section',
      { class: 'loop', 'aria-label': 'The RL loop' },
      h(
        'p',
        { class: 'note', role: 'status' },
        sft ? `The warm start is at SFT step ${sft.step}: the loop starts with RL iteration 1.` : 'This run has no RL iteration yet.',
      ),
    );
  }
  const stages = loopStages(step, props.records, props.samples, props.recipe);
  return h(
    'section',
    { class: 'loop', 'aria-label': 'The RL loop' },
    h(
      'div',
      { class: 'loop-bar' },
      h(
        'label',
        null,
        'Iteration ',
        h('input', {
          type: 'range',
          min: steps[0],
          max: latest,
          step: 1,
          value: step,
          'aria-label': 'iteration',
          onInput: (e: Event) => {
            const v = Number((e.target as HTMLInputElement).value);
            setChosen(v === latest ? null : v);
          },
        }),
        h('output', { 'data-testid': 'loop-step' }, ` ${step} of ${latest}`),
      ),
      chosen === null && props.live ? h('span', { class: 'note' }, ' following the live run') : null,
    ),
    h(
      'ol',
      { class: 'loop-stages', key: step }, // a new key restarts the pulse for each iteration
      stages.map((s, i) =>
        h(
          'li',
          { key: s.key, class: 'loop-stage', 'data-stage': s.key, style: { '--i': i } },
          h('h3', null, h('span', { class: 'loop-index', 'aria-hidden': 'true' }, `${i + 1}`), s.title),
          h('p', { class: 'note' }, s.what),
          h(
            'dl',
            null,
            s.numbers.map(([k, v]) => [h('dt', { key: `${k}-t` }, k), h('dd', { key: `${k}-d`, 'data-name': k }, v)]),
          ),
          h('button', { type: 'button', class: 'loop-link', onClick: () => props.onLink(s.link) }, `${s.linkText} →`),
        ),
      ),
    ),
    h('p', { class: 'note loop-back' }, '↻ The updated policy answers the next iteration’s prompts.'),
    h(IterationRollouts, { samples: props.samples.filter((x) => x.phase === 'rl' && x.step === step) }),
  );
}
