// KTO and span-KTO walkthrough (docs/ui.md §16): KTO (Ethayarajh et al. 2024, as TRL computes it)
// on four completions — the reference point z0 from the mismatched pairs, desirable against
// undesirable weights λ_D, λ_U, β and how far the policy drifted from the reference; then span-KTO
// (docs/algorithms/kto.md §2) on one assistant turn whose per-token polarity the learner edits, with
// the spans, their rewards, the EMA reference point and the per-token gradient. Numbers are the kernels'.

import { h } from 'preact';
import { useState } from 'preact/hooks';
import type { EngineHandle } from '../engine/client.ts';
import type { KtoAnswer, KtoRequest, SpanKtoAnswer, SpanKtoRequest } from '../engine/walk-api.ts';
import { KTO_ROWS, SPAN_TOKENS } from '../engine/walk-data.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { Choice, DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const num = (x: number, cell: string) => h('td', { 'data-cell': cell, 'data-value': String(x) }, fmt(x, 4));

function ktoWorked(a: KtoAnswer, b: number): string {
  const { beta, lambdaD, lambdaU } = a.request;
  const r = a.rewards[b];
  const z0 = String.raw`z_0 &= \max\big(0,\ \tfrac{1}{${a.mismatchedKl.length}}(${a.mismatchedKl.map((k) => tex(k)).join(' + ')})\big) = ${tex(a.z0)}`;
  const loss = a.request.desirable[b]
    ? String.raw`L_{${b + 1}} &= \lambda_D\big(1 - \sigma(\beta(r - z_0))\big) = ${tex(lambdaD, 2)}\big(1 - \sigma(${tex(beta, 2)}\,(${tex(r)} - ${tex(a.z0)}))\big) = ${tex(a.perSample[b], 4)}`
    : String.raw`L_{${b + 1}} &= \lambda_U\big(1 - \sigma(\beta(z_0 - r))\big) = ${tex(lambdaU, 2)}\big(1 - \sigma(${tex(beta, 2)}\,(${tex(a.z0)} - ${tex(r)}))\big) = ${tex(a.perSample[b], 4)}`;
  return String.raw`\begin{aligned}${z0} \\ r_{${b + 1}} &= \textstyle\sum_t(\ell_t - \ell^{ref}_t) = ${tex(r)} \\ ${loss} \\ \partial L/\partial r_{${b + 1}} &= ${tex(a.dLdr[b], 4)}\end{aligned}`;
}

function KtoPart({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<KtoRequest>(url, {
    kind: 'kto',
    beta: 0.1,
    lambdaD: 1,
    lambdaU: 1,
    drift: 1,
    desirable: KTO_ROWS.map((r) => r.desirable),
  });
  const [selected, setSelected] = useState(0);
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<KtoRequest>) => setRequest({ ...request, ...patch });
  return h(
    'div',
    { class: 'walk-part', 'data-part': 'kto', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h('h3', null, 'KTO: one label per completion'),
    h(
      'p',
      { class: 'gae-intro' },
      'KTO needs no pairs: each completion is only marked desirable or not. Its implicit reward r = Σ(ℓ − ℓ_ref) is compared with a reference point z0, the policy’s KL to the reference estimated on mismatched prompt–answer pairs (TRL pairs row b with answer b + 1). ',
      'A desirable completion’s loss falls as r rises above z0, an undesirable one’s as r falls below it; λ_D and λ_U weigh the two kinds, and the sigmoid saturates, so completions far on the right side of z0 stop pulling.',
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(RangeSlider, {
        name: 'beta',
        label: 'β',
        value: request.beta,
        min: 0.01,
        max: 1,
        step: 0.01,
        help: 'sharpness; TRL 0.1',
        onChange: (beta) => update({ beta }),
      }),
      h(RangeSlider, {
        name: 'lambdaD',
        label: 'λ_D',
        value: request.lambdaD,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'weight of desirable',
        onChange: (lambdaD) => update({ lambdaD }),
      }),
      h(RangeSlider, {
        name: 'lambdaU',
        label: 'λ_U',
        value: request.lambdaU,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'weight of undesirable',
        onChange: (lambdaU) => update({ lambdaU }),
      }),
      h(RangeSlider, {
        name: 'drift',
        label: 'drift',
        value: request.drift,
        min: 0,
        max: 3,
        step: 0.05,
        help: 'how far π moved from π_ref',
        onChange: (drift) => update({ drift }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'KTO', stale, testId: 'kto-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer
      ? h(
          'p',
          { class: 'note', 'data-testid': 'kto-z0', 'data-value': String(answer.z0) },
          `Reference point z0 = ${fmt(answer.z0, 4)} nats (the kernel’s; detached, no gradient flows into it). Mean loss ${fmt(answer.loss, 4)}.`,
        )
      : null,
    answer
      ? h(
          'div',
          { class: 'lane-wrap' },
          h(
            'table',
            { class: 'lane walk-table' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['completion', 'label', 'mismatched KL', 'r = Σ(ℓ − ℓ_ref)', 'r − z0', 'loss L', '∂L/∂r'].map((c) => h('th', { key: c, scope: 'col' }, c)),
              ),
            ),
            h(
              'tbody',
              null,
              KTO_ROWS.map((row, b) =>
                h(
                  'tr',
                  { key: b, 'data-row': b, class: b === selected ? 'selected' : undefined },
                  h(
                    'th',
                    { scope: 'row' },
                    h('button', { type: 'button', class: 'walk-pick', 'aria-pressed': b === selected, onClick: () => setSelected(b) }, row.text),
                  ),
                  h(
                    'td',
                    null,
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'walk-pick',
                        'aria-pressed': request.desirable[b] === 1,
                        'aria-label': `completion ${b + 1} desirable`,
                        onClick: () => update({ desirable: request.desirable.map((d, j) => (j === b ? 1 - d : d)) }),
                      },
                      request.desirable[b] ? '✓ desirable' : '✗ undesirable',
                    ),
                  ),
                  num(answer.mismatchedKl[b], `kl-${b}`),
                  num(answer.rewards[b], `r-${b}`),
                  num(answer.rewards[b] - answer.z0, `margin-${b}`),
                  num(answer.perSample[b], `loss-${b}`),
                  num(answer.dLdr[b], `dLdr-${b}`),
                ),
              ),
            ),
          ),
        )
      : null,
    answer
      ? h(
          'div',
          { class: 'equations' },
          h(
            'p',
            { class: 'note' },
            `Completion ${selected + 1} (${answer.request.desirable[selected] ? 'desirable' : 'undesirable'}), with the numbers on screen:`,
          ),
          h('div', { class: 'worked' }, h(Tex, { source: ktoWorked(answer, selected) })),
        )
      : null,
  );
}

const POLARITY_TEXT: Record<number, string> = { 1: '+ good', 0: '0 neutral', [-1]: '− bad' };
const nextPolarity = (p: number) => (p === 1 ? -1 : p === -1 ? 0 : 1);

function SpanTable({ answer }: { answer: SpanKtoAnswer }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['span', 'tokens', 'polarity', 'r_k', 'a_k = r_k − z_ref', '∂L/∂ℓ on its tokens'].map((c) => h('th', { key: c, scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        answer.spans.map((s, k) =>
          h(
            'tr',
            { key: k, 'data-span': k },
            h('th', { scope: 'row' }, `S${k + 1}`),
            h(
              'td',
              { class: 'span-text' },
              SPAN_TOKENS.slice(s.start, s.end)
                .map((t) => t.text)
                .join(''),
            ),
            h('td', null, POLARITY_TEXT[s.polarity]),
            num(answer.spanRewards[k], `span-r-${k}`),
            num(answer.spanRewards[k] - answer.zRef, `span-a-${k}`),
            num(answer.grad[s.start], `span-grad-${k}`),
          ),
        ),
      ),
    ),
  );
}

function SpanPart({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<SpanKtoRequest>(url, {
    kind: 'span-kto',
    beta: 0.5,
    lambdaW: 1,
    lambdaL: 1,
    alpha: 0.9,
    zRef: 0,
    polarity: SPAN_TOKENS.map((t) => t.polarity),
  });
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<SpanKtoRequest>) => setRequest({ ...request, ...patch });
  return h(
    'div',
    { class: 'walk-part', 'data-part': 'span-kto', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h('h3', null, 'Span-KTO: labels on parts of one turn'),
    h(
      'p',
      { class: 'gae-intro' },
      'A verifier can mark parts of an answer: here the wrong step “=16” is bad, the correction and “17” good, the filler neutral. Runs of equal polarity form spans; each span’s summed log-ratio is its reward, compared with a reference point z_ref kept as a moving average over steps (α). ',
      'Neutral tokens get plain likelihood (−mean ℓ). Click a token to cycle its polarity (+, −, 0).',
    ),
    h(
      'div',
      { class: 'span-strip', role: 'group', 'aria-label': 'token polarity' },
      SPAN_TOKENS.map((t, i) =>
        t.assistant
          ? h(
              'button',
              {
                key: i,
                type: 'button',
                class: `span-token pol-${request.polarity[i] === 1 ? 'pos' : request.polarity[i] === -1 ? 'neg' : 'neu'}`,
                'data-token': i,
                'aria-label': `token ${i} “${t.text.trim()}”: ${POLARITY_TEXT[request.polarity[i]]}; press to change`,
                onClick: () => update({ polarity: request.polarity.map((p, j) => (j === i ? nextPolarity(p) : p)) }),
              },
              h('span', { class: 'span-glyph' }, request.polarity[i] === 1 ? '+' : request.polarity[i] === -1 ? '−' : '0'),
              t.text,
            )
          : h('span', { key: i, class: 'span-token prompt', title: 'prompt: no loss' }, t.text),
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(RangeSlider, {
        name: 'spanBeta',
        label: 'β',
        value: request.beta,
        min: 0.01,
        max: 2,
        step: 0.01,
        help: 'the source used 0.01',
        onChange: (beta) => update({ beta }),
      }),
      h(RangeSlider, {
        name: 'lambdaW',
        label: 'λ_w',
        value: request.lambdaW,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'weight of good spans',
        onChange: (lambdaW) => update({ lambdaW }),
      }),
      h(RangeSlider, {
        name: 'lambdaL',
        label: 'λ_l',
        value: request.lambdaL,
        min: 0,
        max: 2,
        step: 0.05,
        help: 'weight of bad spans',
        onChange: (lambdaL) => update({ lambdaL }),
      }),
      h(RangeSlider, {
        name: 'alpha',
        label: 'α',
        value: request.alpha,
        min: 0,
        max: 1,
        step: 0.05,
        help: 'EMA decay of z_ref',
        onChange: (alpha) => update({ alpha }),
      }),
      h(Choice, {
        label: 'previous z_ref',
        value: request.zRef,
        options: [
          { value: 0, text: 'z_ref was 0' },
          { value: 0.5, text: 'z_ref was 0.5' },
        ],
        onChange: (zRef) => update({ zRef }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'span-KTO', stale, testId: 'span-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer
      ? h(
          'p',
          { class: 'note', 'data-testid': 'span-summary', 'data-zref': String(answer.zRef) },
          `z_ref ← ${fmt(answer.request.alpha, 2)}·${fmt(answer.request.zRef, 2)} + ${fmt(1 - answer.request.alpha, 2)}·mean r_k = ${fmt(answer.zRef, 4)}. Loss ${fmt(answer.loss, 4)} = preference ${fmt(answer.prefLoss, 4)} + neutral ${fmt(answer.neutralLoss, 4)}.`,
        )
      : null,
    answer ? h(SpanTable, { answer }) : null,
    h(Tex, {
      source: String.raw`r_k = \textstyle\sum_{t\in S_k}(\ell_t-\ell^{ref}_t)\qquad z_{ref} \leftarrow \alpha z_{ref} + (1-\alpha)\,\overline{r_k}\qquad \ell(S_k) = \begin{cases}-\lambda_w\,\sigma(\beta a_k) & +\\ -\lambda_l\,\sigma(-\beta a_k) & -\end{cases}`,
    }),
  );
}

export function KtoWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  return h('section', { class: 'walk kto', 'aria-label': 'KTO and span-KTO walkthrough' }, h(KtoPart, { engine, url }), h(SpanPart, { engine, url }));
}
