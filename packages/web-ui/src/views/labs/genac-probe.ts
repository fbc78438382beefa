// The GenAC lab's probe (docs/ui.md §24): the chosen rollout cut after k answer tokens, read by both
// critics on the page's device — GenAC's generative critic writes its reasoning and value digit for
// (prompt + the first k tokens), the same seed's PPO value head gives V there — beside the prompt's
// Monte-Carlo value and the rollout's return from the run's log; and a retrain button per critic
// (critic-only iterations, the policy frozen), after which the same cut is probed again and the
// page says what moved. Every number comes from the worker (engine/genac-lab.ts); nothing is
// recomputed here. Keyboard: the cut is a range input (← → Home End), the rest are buttons and selects.

import { h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { EngineHandle } from '../../engine/client.ts';
import {
  GENAC_LAB_RETRAIN_DEFAULT,
  GENAC_LAB_RETRAIN_MAX,
  GENAC_LAB_VALUE_ITERATIONS,
  type GenacLabCritic,
  type GenacLabStatus,
  type GenacProbeAnswer,
  type GenacProbeRequest,
  type GenacProbeWeights,
} from '../../engine/genac-lab-data.ts';
import { LatestOnly } from '../../state/latest.ts';
import { fmt } from '../format.ts';
import { ErrorLine } from '../walk-parts.ts';
import type { CritiqueRow } from './genac-lab.ts';
import type { LabRun } from './lab-run.ts';
import { NumberField } from './number-field.ts';

const sameRequest = (a: GenacProbeRequest | undefined, b: GenacProbeRequest) =>
  !!a && a.runId === b.runId && a.iteration === b.iteration && a.rolloutId === b.rolloutId && a.cut === b.cut && a.weights === b.weights;

function writtenText(g: GenacProbeAnswer['generative']): string {
  return `${g.written === '' ? '(nothing)' : g.written}${g.endedWithEos ? ' <eos>' : ' (cut by the token budget)'}`;
}

/** What moved at the cut between the probe before a retrain and the one after. */
function Moved({ before, after }: { before: GenacProbeAnswer; after: GenacProbeAnswer }) {
  const digit = (a: GenacProbeAnswer) => (a.generative.digit !== null ? `digit ${a.generative.digit}` : `malformed (${a.generative.malformed})`);
  const generative = writtenText(before.generative) === writtenText(after.generative) ? 'wrote the same' : 'wrote something else';
  const v = (a: GenacProbeAnswer) => (a.valueHead ? fmt(a.valueHead.value, 4) : 'none');
  const valueSame = before.valueHead?.value === after.valueHead?.value;
  return h(
    'p',
    { class: 'note', role: 'status', 'data-testid': 'probe-moved' },
    `After retraining, at the same cut: the generative critic ${generative} (${digit(before)} → ${digit(after)}); the value head's V ${v(before)} → ${v(after)}${valueSame ? ' (unchanged)' : ''}.`,
  );
}

function Cut({ answer }: { answer: GenacProbeAnswer }) {
  const k = answer.request.cut;
  return h(
    'p',
    { class: 'genac-cut', 'data-testid': 'probe-cut-text' },
    h('code', null, answer.prompt),
    answer.response.map((piece, i) =>
      h('code', { key: i, class: i < k ? 'genac-kept' : 'genac-dropped', title: i < k ? 'read by the critics' : 'not read' }, piece),
    ),
    ` — the critics read the prompt and the first ${k} of ${answer.response.length} answer tokens`,
  );
}

function Readings({ answer, row, onTrainValue, busy }: { answer: GenacProbeAnswer; row: CritiqueRow; onTrainValue: () => void; busy: boolean }) {
  const g = answer.generative;
  const vh = answer.valueHead;
  return h(
    'dl',
    { class: 'lab-critique', 'data-testid': 'genac-probe-readings' },
    h('dt', null, 'the generative critic read'),
    h('dd', null, h('code', null, g.criticPrompt)),
    h('dt', null, `it wrote (one draw at τ = 1, the iteration's noise; weights trained through iteration ${g.trainedThrough})`),
    h(
      'dd',
      { 'data-testid': 'probe-written', 'data-text': g.written, 'data-eos': String(g.endedWithEos), 'data-trained-through': g.trainedThrough },
      h('code', null, writtenText(g)),
      g.digit !== null ? ` — value digit ${g.digit}` : ` — malformed (${g.malformed}): core’s parser reads no value`,
    ),
    h('dt', null, 'its value v = digit/10'),
    h(
      'dd',
      { 'data-testid': 'probe-digit', 'data-digit': g.digit === null ? '' : String(g.digit), 'data-value': g.value === null ? '' : String(g.value) },
      g.value === null ? 'none (training would give it the batch’s fallback)' : fmt(g.value, 3),
    ),
    h('dt', null, 'the discriminative critic’s V (the same seed’s PPO value head) at the cut'),
    vh
      ? h(
          'dd',
          { 'data-testid': 'probe-v', 'data-value': String(vh.value), 'data-inputs': JSON.stringify(vh.inputs), 'data-iterations': vh.iterations },
          `${fmt(vh.value, 4)} (after ${vh.iterations} critic-only PPO iterations)`,
        )
      : h(
          'dd',
          { 'data-testid': 'probe-v', 'data-value': '' },
          'not trained yet — add-genac has no value head, so the lab trains add-ppo’s on the same seed: ',
          h(
            'button',
            { type: 'button', disabled: busy, onClick: onTrainValue, 'data-testid': 'train-value-head' },
            `Train it (${GENAC_LAB_VALUE_ITERATIONS} critic-only iterations)`,
          ),
        ),
    h('dt', null, 'Monte-Carlo value of the prompt (its group’s mean reward, from the log)'),
    h('dd', { 'data-testid': 'probe-mc', 'data-value': String(row.mc) }, fmt(row.mc, 3)),
    h('dt', null, 'the rollout’s return G (from the log)'),
    h('dd', { 'data-testid': 'probe-return', 'data-value': String(row.sample.reward) }, fmt(row.sample.reward, 3)),
  );
}

/** V at every cut of the rollout: one forward pass of the value head, as the worker returned it. */
function ValueStrip({ answer }: { answer: GenacProbeAnswer }) {
  const vh = answer.valueHead;
  if (!vh) return null;
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'probe-values' },
      h('caption', null, 'The value head’s V after each number of answer tokens (the chosen cut marked)'),
      h(
        'tbody',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'tokens read'),
          vh.values.map((_, k) =>
            h('td', { key: k, class: k === answer.request.cut ? 'selected' : undefined }, k === 0 ? '0 (prompt)' : `${k}: ${answer.response[k - 1]}`),
          ),
        ),
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'V'),
          vh.values.map((v, k) => h('td', { key: k, 'data-value': String(v), class: k === answer.request.cut ? 'selected' : undefined }, fmt(v, 3))),
        ),
      ),
    ),
  );
}

function RetrainRows({ status }: { status: GenacLabStatus }) {
  const rows = [
    ...status.generativeRows.map((r) => ({
      critic: 'generative',
      step: r.step,
      text: `malformed ${fmt(100 * (r.metrics['genac/malformed_rate'] ?? Number.NaN), 0)}%, mean |v − MC| ${fmt(r.metrics['genac/value_error'] ?? Number.NaN, 3)}, critic reward ${fmt(r.metrics['genac/critic_reward'] ?? Number.NaN, 3)}`,
    })),
    ...(status.valueHead?.rows ?? []).map((r) => ({
      critic: 'value head',
      step: r.step,
      text: `value loss ${fmt(r.metrics['critic/value_loss'] ?? Number.NaN, 4)}, explained variance ${fmt(r.metrics['critic/explained_var'] ?? Number.NaN, 3)}, reward ${fmt(r.metrics['rollout/reward'] ?? Number.NaN, 3)}`,
    })),
  ];
  if (rows.length === 0) return null;
  return h(
    'ul',
    { class: 'note', 'data-testid': 'retrain-rows' },
    rows.map((r) =>
      h('li', { key: `${r.critic}${r.step}`, 'data-critic': r.critic, 'data-step': r.step }, `${r.critic}, critic-only iteration ${r.step}: ${r.text}`),
    ),
  );
}

export function GenacProbe(props: { engine: EngineHandle; run: LabRun; row: CritiqueRow; iteration: number; onBusy: (busy: boolean) => void }) {
  const { engine, run, row, iteration } = props;
  const [status, setStatus] = useState<GenacLabStatus | null>(null);
  const [cut, setCut] = useState(0);
  const [weights, setWeights] = useState<GenacProbeWeights>('now');
  /** The latest answer, with the retrain version its request was sent at (not the status's now: a retrain may end before the new answer comes). */
  const [answered, setAnswered] = useState<{ answer: GenacProbeAnswer; version: number } | null>(null);
  const answer = answered?.answer ?? null;
  const [before, setBefore] = useState<GenacProbeAnswer | null>(null);
  const [retrainN, setRetrainN] = useState(GENAC_LAB_RETRAIN_DEFAULT);
  const [error, setError] = useState<string | null>(null);
  const [retraining, setRetraining] = useState<GenacLabCritic | null>(null);
  const idle = run.state !== 'running';
  const answers = useMemo(
    () =>
      new LatestOnly<{ request: GenacProbeRequest; version: number }, { answer: GenacProbeAnswer; version: number }>(
        async ({ request, version }) => ({ answer: await engine.genacProbe(request), version }),
        (a) => {
          setError(null);
          setAnswered(a);
        },
        (e) => setError(String((e as Error)?.message ?? e)),
      ),
    [engine],
  );
  useEffect(() => {
    if (idle) void engine.genacLab().then(setStatus, (e) => setError(String(e)));
  }, [engine, run.id, run.state]);
  // The answer's tokens: everything from the first action token (single-turn addition).
  const responseTokens = row.sample.tokens.length - row.sample.roles.indexOf('a');
  const maxCut = Math.max(0, responseTokens - 1);
  const k = Math.min(cut, maxCut);
  const live = status?.runId === run.id;
  const request: GenacProbeRequest = { runId: run.id, iteration, rolloutId: row.sample.rolloutId, cut: k, weights };
  useEffect(() => {
    if (idle && live) answers.request({ request, version: status?.version ?? 0 });
  }, [idle, live, run.id, iteration, row.sample.rolloutId, k, weights, status?.version]);

  const retrain = async (critic: GenacLabCritic, iterations: number) => {
    setRetraining(critic);
    props.onBusy(true);
    setError(null);
    if (answer && sameRequest(answer.request, request)) setBefore(answer);
    const poll = setInterval(() => void engine.genacLab().then(setStatus), 1000);
    try {
      setStatus(await engine.genacRetrain({ runId: run.id, critic, iterations }));
    } catch (e) {
      setError(String((e as Error)?.message ?? e));
    } finally {
      clearInterval(poll);
      setRetraining(null);
      props.onBusy(false);
    }
  };

  if (!idle) return h('p', { class: 'note' }, 'The critics can be probed at a cut once the run is paused or finished.');
  if (status && !live)
    return h('p', { class: 'note' }, 'This seed’s models are no longer in the worker (another run was trained since): train it again to probe its critics.');
  const current = answer && sameRequest(answer.request, request) ? answer : null;
  const busyText = status?.busy
    ? `Retraining the ${status.busy.critic === 'generative' ? 'generative critic' : 'value head'}: ${status.busy.done} of ${status.busy.of} critic-only iterations done…`
    : retraining
      ? 'Retraining…'
      : null;
  return h(
    'section',
    {
      class: 'genac-probe',
      'aria-label': 'probe both critics at a cut',
      'data-answer-for': answered ? JSON.stringify({ ...answered.answer.request, version: answered.version }) : '',
      'data-version': status?.version ?? 0,
    },
    h('h3', null, 'Both critics at a cut of this rollout'),
    h(
      'p',
      { class: 'note' },
      'Cut the answer after k tokens: the generative critic reads core’s critic prompt of the prompt plus those tokens (it was trained on k = 0 only, so later cuts ask it something new), and the value head reads the same tokens. The value head is the same seed’s add-ppo run, trained critic-only from this run’s SFT policy: the policy the first iterations here sampled with.',
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'label',
        { class: 'slider' },
        h('span', { class: 'slider-label' }, 'answer tokens read k = ', h('output', { 'data-testid': 'cut-value' }, String(k))),
        h('input', {
          type: 'range',
          name: 'cut',
          min: 0,
          max: maxCut,
          step: 1,
          value: k,
          'aria-label': 'answer tokens read',
          onInput: (e: Event) => setCut(Number((e.target as HTMLInputElement).value)),
        }),
      ),
      h(
        'label',
        null,
        'Generative critic ',
        h(
          'select',
          { name: 'critic-weights', value: weights, onChange: (e: Event) => setWeights((e.target as HTMLSelectElement).value as GenacProbeWeights) },
          h('option', { value: 'now' }, 'as it is now'),
          h('option', { value: 'sampled' }, `as it sampled iteration ${iteration}`),
        ),
      ),
    ),
    current ? h(Cut, { answer: current }) : h('p', { class: 'note' }, 'Probing on the worker…'),
    current
      ? h(Readings, { answer: current, row, busy: retraining !== null, onTrainValue: () => void retrain('value-head', GENAC_LAB_VALUE_ITERATIONS) })
      : null,
    current ? h(ValueStrip, { answer: current }) : null,
    current && before && before !== current && sameRequest(before.request, current.request) ? h(Moved, { before, after: current }) : null,
    h(
      'div',
      { class: 'lab-transport', role: 'group', 'aria-label': 'retrain a critic' },
      h(NumberField, {
        name: 'retrain-iterations',
        label: 'Critic-only iterations',
        value: retrainN,
        range: [1, GENAC_LAB_RETRAIN_MAX],
        onChange: setRetrainN,
      }),
      h(
        'button',
        {
          type: 'button',
          disabled: retraining !== null || run.state !== 'finished',
          onClick: () => void retrain('generative', retrainN),
          'data-testid': 'retrain-generative',
        },
        'Retrain the generative critic',
      ),
      h(
        'button',
        {
          type: 'button',
          disabled: retraining !== null || run.state !== 'finished' || !status?.valueHead,
          onClick: () => void retrain('value-head', retrainN),
          'data-testid': 'retrain-value-head',
        },
        'Retrain the value head',
      ),
      h(
        'span',
        { class: 'note', role: 'status', 'data-testid': 'retrain-status' },
        busyText ??
          `The generative critic has trained through ${status?.generativeIterations ?? '…'} iterations (${status?.generativeRows.length ?? 0} of them critic-only); the value head through ${status?.valueHead?.iterations ?? 0}. ${run.state === 'finished' ? 'Each retrain samples fresh rollouts with the frozen policy: GenAC’s REINFORCE step on new critiques, or PPO’s value loss on new returns.' : 'Retraining continues after the run’s last iteration: let it finish.'}`,
      ),
    ),
    h(RetrainRows, { status: status ?? { runId: run.id, generativeIterations: 0, generativeRows: [], valueHead: null, busy: null, version: 0 } }),
    h(ErrorLine, { error }),
  );
}
