// Critic vs GenAC walkthrough (docs/ui.md §22, docs/algorithms/genac.md): four rollouts; for each,
// the learner types what a generative critic wrote ("reasoning=digit", ended with <eos> or not) and
// sees core's value-digit parser read it — the digit and value, or which malformed form it is and
// the fallback its rollout gets — and how that value becomes every action token's advantage,
// G_t − v, beside a discriminative critic's per-token values and their GAE advantages. Both from
// the GAE kernel on the worker's device.

import { h } from 'preact';
import type { EngineHandle } from '../engine/client.ts';
import { type CritiqueInput, GENAC_PRESETS, GENAC_ROLLOUTS } from '../engine/genac-data.ts';
import type { GenacAnswer, GenacRequest } from '../engine/walk-api.ts';
import { fmt } from './format.ts';
import { Tex, tex } from './tex.ts';
import { DeviceLine, ErrorLine, RangeSlider, useUrlRequest, useWalk, type WalkUrl } from './walk-parts.ts';

const REASON_TEXT: Record<string, string> = {
  'no-eos': 'no <eos>: cut before it ended',
  'no-slot': 'no “=”: no value slot',
  'several-slots': 'more than one “=”',
  empty: 'nothing after “=”',
  'not-a-number': 'not digits after “=”',
  'leading-zero': 'leading zero (one spelling per value)',
  'out-of-range': 'above 10',
};

const cells = (xs: number[], key: string, b: number) =>
  xs.map((x, t) => h('td', { key: t, 'data-cell': `${key}-${b}-${t}`, 'data-value': String(x) }, fmt(x, 3)));

function CritiqueEditor({ b, critique, onChange }: { b: number; critique: CritiqueInput; onChange: (c: CritiqueInput) => void }) {
  return h(
    'span',
    { class: 'genac-editor' },
    h('input', {
      type: 'text',
      name: `critique-${b}`,
      class: 'monitor-line-input',
      value: critique.text,
      maxLength: 40,
      spellcheck: false,
      autocomplete: 'off',
      'aria-label': `what the critic wrote for rollout ${b + 1}, before <eos>`,
      onInput: (e: Event) => onChange({ ...critique, text: (e.target as HTMLInputElement).value }),
    }),
    h(
      'label',
      null,
      h('input', {
        type: 'checkbox',
        name: `eos-${b}`,
        checked: critique.eos,
        onChange: (e: Event) => onChange({ ...critique, eos: (e.target as HTMLInputElement).checked }),
      }),
      ' ended with <eos>',
    ),
  );
}

function Table({ answer, request, onCritique }: { answer: GenacAnswer; request: GenacRequest; onCritique: (b: number, c: CritiqueInput) => void }) {
  return h(
    'div',
    { class: 'lane-wrap' },
    h(
      'table',
      { class: 'lane walk-table genac-table', 'data-testid': 'genac-table' },
      h('caption', null, 'Each rollout’s answer (three action tokens, reward on the last), its critic output and the advantages each critic gives'),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['rollout', 'reward', 'generative critic wrote', 'parsed', 'baseline v', 'GenAC A = G − v', 'value head V_t', 'GAE A (value head)'].map((c) =>
            h('th', { key: c, scope: 'col', colSpan: c.startsWith('GenAC') || c.startsWith('value') || c.startsWith('GAE') ? 3 : 1 }, c),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        GENAC_ROLLOUTS.map((r, b) => {
          const c = answer.critiques[b];
          return h(
            'tr',
            { key: b, 'data-rollout': b, 'data-ok': String(c.ok), 'data-reason': c.ok ? '' : c.reason },
            h('th', { scope: 'row' }, `${r.prompt} ${r.tokens.slice(0, 2).join('')}`),
            h('td', null, String(r.reward)),
            h('td', null, h(CritiqueEditor, { b, critique: request.critiques[b], onChange: (next) => onCritique(b, next) })),
            h(
              'td',
              { class: c.ok ? 'genac-parsed' : 'genac-parsed genac-malformed', 'data-cell': `parsed-${b}` },
              c.ok ? `✓ digit ${c.digit} → ${fmt(c.value, 1)}` : `✗ ${REASON_TEXT[c.reason] ?? c.reason} → fallback`,
            ),
            h('td', { 'data-cell': `baseline-${b}`, 'data-value': String(answer.baselines[b]) }, fmt(answer.baselines[b], 3)),
            cells(answer.genac[b], 'genac', b),
            r.values.slice(0, 3).map((v, t) => h('td', { key: `v${t}` }, fmt(v, 2))),
            cells(answer.discriminative[b], 'disc', b),
          );
        }),
      ),
    ),
  );
}

export function GenacWalkthrough({ engine, url }: { engine: EngineHandle; url: WalkUrl }) {
  const [request, setRequest, urlProblem] = useUrlRequest<GenacRequest>(url, {
    kind: 'genac',
    critiques: GENAC_PRESETS[0].critiques.map((c) => ({ ...c })),
    lambda: 0.95,
  });
  const { answer, error, stale } = useWalk(engine, request);
  const setCritique = (b: number, c: CritiqueInput) => setRequest({ ...request, critiques: request.critiques.map((x, i) => (i === b ? c : x)) });
  const malformed = answer ? answer.critiques.filter((c) => !c.ok).length : 0;
  return h(
    'section',
    { class: 'walk genac', 'aria-label': 'Critic versus GenAC walkthrough', 'data-answer-for': answer ? JSON.stringify(answer.request) : '' },
    h(
      'div',
      { class: 'gae-intro' },
      h(
        'p',
        null,
        'A discriminative critic is a value head: a number V_t before every token, and GAE turns the differences of those numbers into advantages. ',
        'A generative critic (GenAC) is a language model that writes a short reasoning and then its value as text, “reasoning=digit” with the digit 0–10 standing for digit/10. That value is the baseline of every action token of the rollout: A_t = G_t − v.',
      ),
      h(
        'p',
        null,
        'Text can be malformed. Core’s parser reads only the last slot and names what is wrong; a malformed output’s rollout gets the mean of the batch’s well-formed values (0.5 if none is), a baseline that cannot depend on its own outcome. Type into any output, or pick a preset.',
      ),
    ),
    h(
      'div',
      { class: 'gae-controls' },
      h(
        'div',
        { class: 'presets', role: 'group', 'aria-label': 'preset critic outputs' },
        GENAC_PRESETS.map((p) =>
          h(
            'button',
            {
              key: p.label,
              type: 'button',
              'aria-pressed': JSON.stringify(p.critiques) === JSON.stringify(request.critiques),
              onClick: () => setRequest({ ...request, critiques: p.critiques.map((c) => ({ ...c })) }),
            },
            p.label,
          ),
        ),
      ),
      h(RangeSlider, {
        name: 'lambda',
        label: 'λ',
        value: request.lambda,
        min: 0,
        max: 1,
        step: 0.05,
        help: 'GAE λ of the value head',
        onChange: (lambda) => setRequest({ ...request, lambda }),
      }),
    ),
    h(DeviceLine, { answer, kernel: 'GAE', stale, testId: 'genac-device' }),
    h(ErrorLine, { error: urlProblem }),
    h(ErrorLine, { error }),
    answer ? h(Table, { answer, request, onCritique: setCritique }) : null,
    answer
      ? h(
          'p',
          { class: `note${malformed ? ' flag' : ''}`, 'data-testid': 'genac-fallback', 'data-value': String(answer.fallback) },
          malformed
            ? `${malformed} of ${GENAC_ROLLOUTS.length} outputs are malformed (genac/malformed_rate ${fmt(malformed / GENAC_ROLLOUTS.length, 2)}); they take the fallback ${fmt(answer.fallback, 3)}, ${malformed === GENAC_ROLLOUTS.length ? 'the middle of [0, 1]: no output is well-formed' : 'the mean of the well-formed values'}.`
            : `Every output is well-formed; a malformed one would take the mean of these values, ${fmt(answer.fallback, 3)}.`,
        )
      : null,
    answer
      ? h(
          'div',
          { class: 'worked' },
          h(Tex, {
            source: String.raw`\text{rollout 1:}\quad A_0 = G_0 - v = ${tex(GENAC_ROLLOUTS[0].reward, 0)} - ${tex(answer.baselines[0])} = ${tex(answer.genac[0][0])}\qquad A^{GAE}_0 = \textstyle\sum_k (\gamma\lambda)^k\delta_k = ${tex(answer.discriminative[0][0])}`,
          }),
        )
      : null,
  );
}
