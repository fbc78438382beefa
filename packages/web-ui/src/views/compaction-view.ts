// Compaction and split invariance walkthrough (docs/ui.md §20, docs/experiments/split-invariance.md):
// a long rollout's values and outcome, cut after token k by a slider as compaction cuts it into two
// segments (two rows, one rollout id). The GAE kernel's advantages of the uncut rollout beside the
// segments' — the first segment's local GAE times the cross-segment factor (γλ)^tokensAfter
// (CompactionRL, arXiv:2607.05378 eq. 14–15) — and, below, the aggregation kernel's loss of a batch
// (the long rollout and a short one) whole and cut under every reducer: token-mean and
// per-rollout-mean do not move, the seq-mean reducers do, because a cut rollout counts as two rows.

import { h } from 'preact';
import type { EngineHandle } from '../engine/client.ts';
import { COMPACTION_REWARD, LONG_T, LONG_TOKENS, SHORT_LOSSES } from '../engine/compaction-data.ts';
import type { CompactionAnswer, CompactionRequest } from '../engine/walk-api.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { Choice, DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

/** Equal to float32 precision: what "the loss did not move" means for a kernel's sum. */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a));

const ROWS: { key: string; label: string; of: (a: CompactionAnswer) => number[] }[] = [
  { key: 'value', label: 'V critic value', of: (a) => a.values },
  { key: 'whole', label: 'A uncut rollout', of: (a) => a.whole },
  { key: 'local', label: 'A local to its segment', of: (a) => a.local },
  { key: 'stitched', label: 'A segment × factor', of: (a) => a.stitched },
  { key: 'diff', label: 'segment − uncut', of: (a) => a.stitched.map((x, t) => x - a.whole[t]) },
];

function AdvantageTable({ answer }: { answer: CompactionAnswer }) {
  const cut = answer.request.cut;
  const segmentOf = (t: number) => (t < cut ? 1 : 2);
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'compaction-advantages' },
      h(
        'caption',
        null,
        `The long rollout’s ${LONG_T} action tokens; ✂ marks the cut: segment 1 is tokens 0–${cut - 1}, segment 2 tokens ${cut}–${LONG_T - 1}`,
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'row' }, 'token'),
          LONG_TOKENS.map((tok, t) =>
            h(
              'th',
              { key: t, scope: 'col', class: t === cut ? 'cut-after' : undefined },
              `${t === cut ? '✂ ' : ''}${tok.text}`,
              h('br', null),
              h('small', null, `seg ${segmentOf(t)}`),
            ),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        ROWS.map((row) =>
          h(
            'tr',
            { key: row.key, 'data-row': row.key },
            h('th', { scope: 'row' }, row.label),
            row
              .of(answer)
              .map((x, t) =>
                h('td', { key: t, class: t === cut ? 'cut-after' : undefined, 'data-cell': `${row.key}-${t}`, 'data-value': String(x) }, fmt(x, 4)),
              ),
          ),
        ),
      ),
    ),
  );
}

const REDUCER_TEXT: Record<string, string> = {
  'token-mean': 'Σ m·L / Σ m over the batch',
  'per-rollout-mean': 'each rollout’s tokens over its own count, all segments together, then the mean over rollouts',
  'seq-mean-token-mean': 'the mean over rows of each row’s token mean',
  'seq-mean-token-sum-norm': `the mean over rows of each row’s sum / C (C = ${LONG_T})`,
};

function LossTable({ answer }: { answer: CompactionAnswer }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table', 'data-testid': 'compaction-losses' },
      h(
        'caption',
        null,
        `Loss of the batch (the long rollout and a short one of ${SHORT_LOSSES.length} tokens) under each reducer, uncut (2 rows) and cut (3 rows)`,
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['rl.lossAggregation', 'what it averages', 'uncut', 'cut', 'split-invariant here?'].map((c) => h('th', { key: c, scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        answer.losses.map((l) =>
          h(
            'tr',
            { key: l.mode, 'data-reducer': l.mode, 'data-same': String(same(l.whole, l.cut)) },
            h('th', { scope: 'row' }, h('code', null, l.mode)),
            h('td', { class: 'monitor-reason' }, REDUCER_TEXT[l.mode]),
            h('td', { 'data-cell': `loss-whole-${l.mode}`, 'data-value': String(l.whole) }, fmt(l.whole, 5)),
            h('td', { 'data-cell': `loss-cut-${l.mode}`, 'data-value': String(l.cut) }, fmt(l.cut, 5)),
            h('td', null, same(l.whole, l.cut) ? '✓ unchanged' : `✗ changed by ${fmt(l.cut - l.whole, 5)}`),
          ),
        ),
      ),
    ),
  );
}

function Equations({ answer }: { answer: CompactionAnswer }) {
  const { gamma, lambda, cut } = answer.request;
  const t = cut - 1;
  return h(
    'div',
    { class: 'equations' },
    h(Tex, {
      source: String.raw`A^{\text{seg}}_t = (\gamma\lambda)^{n_{\text{after}}}\,A^{\text{local}}_t\qquad n_{\text{after}} = \text{trained tokens of the later segments}`,
    }),
    h(
      'p',
      { class: 'note', 'data-testid': 'compaction-worked-note' },
      `The last token of segment 1 (token ${t}, “${LONG_TOKENS[t].text.trim()}”) with the numbers on screen:`,
    ),
    h(
      'div',
      { class: 'worked' },
      h(Tex, {
        source: String.raw`(${tex(gamma, 2)}\cdot${tex(lambda, 2)})^{${answer.tokensAfter}} \times ${tex(answer.local[t], 4)} = ${tex(answer.factor, 4)} \times ${tex(answer.local[t], 4)} = ${tex(answer.stitched[t], 4)}\quad(\text{uncut: } ${tex(answer.whole[t], 4)})`,
      }),
    ),
  );
}

export function CompactionWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<CompactionRequest>(url, { kind: 'compaction', cut: 5, gamma: 1, lambda: 0.9, critic: false });
  const { answer, error, stale } = useWalk(engine, request);
  const update = (patch: Partial<CompactionRequest>) => setRequest({ ...request, ...patch });
  const maxDiff = answer ? Math.max(...answer.stitched.map((x, t) => Math.abs(x - answer.whole[t]))) : 0;
  return h(
    'section',
    { class: 'walk compaction', 'aria-label': 'Compaction and split invariance walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'When an agent’s context fills up, compaction has the policy write a summary and starts a new context from it: one rollout becomes several segments, each a row of its own. Training must not care where the cut fell. ',
        `Each segment gets the rollout’s reward (${COMPACTION_REWARD}) on its last token and no bootstrap, its own GAE, and then the cross-segment factor (γλ)^n, n = the tokens trained after it — the discount the uncut chain would have applied over those tokens (CompactionRL).`,
      ),
      h(
        'p',
        null,
        'Then the loss: a reducer that divides by tokens does not see rows, so the cut cannot move it; one that averages over rows counts a cut rollout twice. Move the cut and watch both.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(RangeSlider, {
        name: 'cut',
        label: 'cut after',
        value: request.cut,
        min: 1,
        max: LONG_T - 1,
        step: 1,
        digits: 0,
        help: `tokens in segment 1 (of ${LONG_T})`,
        onChange: (cut) => update({ cut }),
      }),
      h(RangeSlider, {
        name: 'gamma',
        label: 'γ',
        value: request.gamma,
        min: 0.8,
        max: 1,
        step: 0.01,
        help: 'discount',
        onChange: (gamma) => update({ gamma }),
      }),
      h(RangeSlider, {
        name: 'lambda',
        label: 'λ',
        value: request.lambda,
        min: 0,
        max: 1,
        step: 0.05,
        help: 'GAE λ',
        onChange: (lambda) => update({ lambda }),
      }),
      h(Choice, {
        label: 'critic',
        value: request.critic ? 1 : 0,
        options: [
          { value: 0, text: 'V = 0 (no critic)' },
          { value: 1, text: 'critic values' },
        ],
        onChange: (v) => update({ critic: v === 1 }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'GAE and loss-aggregation', stale, testId: 'compaction-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? h(AdvantageTable, { answer }) : null,
    answer
      ? h(
          'p',
          { class: `note${same(maxDiff, 0) ? '' : ' flag'}`, 'data-testid': 'compaction-match' },
          answer.request.critic
            ? `With a critic the segments are not the uncut chain: segment 1 ends at its own reward with no bootstrap, where the uncut chain continued into V of token ${answer.request.cut}. The largest difference is ${fmt(maxDiff, 4)}; the factor makes the outcome's credit match, not the critic's.`
            : `With V = 0 the segments stitch back to the uncut rollout: the largest difference is ${fmt(maxDiff, 7)}, float32 rounding. Factor (γλ)^${answer.tokensAfter} = ${fmt(answer.factor, 4)}.`,
        )
      : null,
    answer ? h(Equations, { answer }) : null,
    answer ? h(LossTable, { answer }) : null,
  );
}
