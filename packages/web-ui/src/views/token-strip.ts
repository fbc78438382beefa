// A rollout's tokens as chips (docs/ui.md §1). Action tokens are coloured by the chosen channel on the
// diverging scale and marked with their sign as a glyph and an underline style, so the sign reads
// without colour; prompt and observation tokens are grey, outlined or hatched, and carry no channel
// colour because no loss is computed on them. Hover (or focus) shows every channel's number. Given
// a multi-turn trace's spans (core's trace view), the chips are grouped one span per line, each
// labelled (turn, tool call, observation, summary, carried context), and a long span the policy did
// not write is folded after FOLD_AFTER tokens behind a button.

import type { TraceSpan } from '@horizon/core';
import { type ComponentChildren, h } from 'preact';
import { useState } from 'preact/hooks';
import type { ReplaySample } from '../engine/api.ts';
import { CHANNELS, type ChannelName, channelOffset, divergingColor, textOn } from './colors.ts';
import { fmtSigned } from './format.ts';

const ROLE = { p: 'prompt', a: 'action', o: 'observation' } as const;
/** What a token of each kind (samples.jsonl `kinds`) is, for the hover card. */
const KIND_OF_LETTER = { p: 'prompt', a: 'action', o: 'observation', u: 'user', f: 'fabricated', s: 'summary', c: 'context' } as const;
const NO_LOSS_WHY: Record<string, string> = {
  prompt: 'written by the task',
  observation: 'written by the environment (a tool result)',
  user: 'a user turn the environment wrote',
  fabricated: 'made up by the environment in place of a real result',
  context: 'carried over from an earlier segment, where it trained if the policy sampled it',
};
/** Tokens of a span the policy did not write shown before the rest is folded behind a button. */
export const FOLD_AFTER = 120;

export interface TokenInfo {
  sample: ReplaySample;
  index: number;
  /** Where to put the tooltip, page coordinates. */
  x: number;
  y: number;
}

/** The text of token `i`: its decoded piece, or its id when the run did not record pieces. */
export function pieceOf(sample: ReplaySample, i: number): string {
  return sample.pieces?.[i] ?? `#${sample.tokens[i]}`;
}

/** Largest |offset| of `channel` over the action tokens of `samples`: the scale's ±1 (at least 1e-6). */
export function channelExtent(samples: readonly ReplaySample[], channel: ChannelName): number {
  let m = 1e-6;
  for (const s of samples) {
    const values = s.channels[channel];
    if (!values) continue;
    for (let i = 0; i < values.length; i++) {
      if (s.roles[i] !== 'a') continue;
      const off = Math.abs(channelOffset(channel, values[i]));
      if (Number.isFinite(off) && off > m) m = off;
    }
  }
  return m;
}

/**
 * One tab stop per strip (roving tabindex): Tab enters the strip on its current token, ← → Home End
 * move between the action tokens (the hover card follows focus), Enter or a click picks a token.
 */
export function TokenStrip(props: {
  sample: ReplaySample;
  channel: ChannelName;
  extent: number;
  onHover: (info: TokenInfo | null) => void;
  onPick?: (index: number) => void;
  /** A multi-turn trace segment's spans: chips grouped one labelled span per line. */
  spans?: readonly TraceSpan[];
}) {
  const { sample, channel, extent, onHover, onPick, spans } = props;
  const [unfolded, setUnfolded] = useState<ReadonlySet<number>>(new Set());
  const values = sample.channels[channel];
  const stops = values ? sample.tokens.flatMap((_, i) => (sample.roles[i] === 'a' ? [i] : [])) : [];
  const [current, setCurrent] = useState<number>(-1);
  const active = stops.includes(current) ? current : (stops[0] ?? -1);
  const onKey = (event: KeyboardEvent) => {
    if ((event.target as HTMLElement).closest('button')) return; // Enter on "… more tokens" unfolds, it picks nothing
    const k = stops.indexOf(active);
    const to =
      event.key === 'ArrowRight'
        ? stops[Math.min(stops.length - 1, k + 1)]
        : event.key === 'ArrowLeft'
          ? stops[Math.max(0, k - 1)]
          : event.key === 'Home'
            ? stops[0]
            : event.key === 'End'
              ? stops.at(-1)
              : undefined;
    if (to !== undefined) {
      event.preventDefault();
      setCurrent(to);
      (event.currentTarget as HTMLElement).querySelector<HTMLElement>(`[data-i="${to}"]`)?.focus();
    } else if (event.key === 'Enter' && onPick && active >= 0) {
      event.preventDefault();
      onPick(active);
    }
  };
  const show = (event: Event) => {
    const el = (event.target as HTMLElement).closest<HTMLElement>('[data-i]');
    if (!el) return;
    const rect = el.getBoundingClientRect();
    onHover({ sample, index: Number(el.dataset.i), x: rect.left + window.scrollX, y: rect.bottom + window.scrollY + 4 });
  };
  const chip = (i: number) => {
    const role = ROLE[sample.roles[i] as keyof typeof ROLE];
    const text = pieceOf(sample, i);
    if (role !== 'action' || !values) return h('span', { key: i, class: `tok tok-${role}`, 'data-i': i, 'data-role': role }, text);
    const v = values[i];
    const t = channelOffset(channel, v) / extent;
    const sign = !Number.isFinite(t) ? 'nan' : t > 0 ? 'pos' : t < 0 ? 'neg' : 'zero';
    return h(
      'span',
      {
        key: i,
        class: `tok tok-action sign-${sign}`,
        'data-i': i,
        'data-role': role,
        'data-value': String(v),
        tabIndex: i === active ? 0 : -1,
        style: { background: divergingColor(t), color: textOn(t) },
      },
      text,
    );
  };
  const range = (start: number, end: number) => Array.from({ length: end - start }, (_, k) => chip(start + k));
  const children = spans
    ? spans.map((span, k) => {
        const folded = span.masked && !unfolded.has(k) && span.end - span.start > FOLD_AFTER;
        const end = folded ? span.start + FOLD_AFTER : span.end;
        return h(
          'div',
          { key: `span-${k}`, class: `span span-${span.kind}`, 'data-kind': span.kind },
          h(SpanLabel, { span }),
          range(span.start, end),
          folded
            ? h('button', { type: 'button', class: 'unfold', onClick: () => setUnfolded(new Set([...unfolded, k])) }, `… ${span.end - end} more tokens`)
            : null,
        );
      })
    : range(0, sample.tokens.length);
  return h(
    'div',
    {
      class: spans ? 'strip strip-spans' : 'strip',
      role: 'group',
      'aria-label': `rollout ${sample.rolloutId}, ${stops.length} action tokens: arrow keys move between them${onPick ? ', Enter explains one' : ''}`,
      onMouseOver: show,
      onFocusIn: show,
      onMouseLeave: () => onHover(null),
      onFocusOut: () => onHover(null),
      onKeyDown: onKey,
      onClick: (event: Event) => {
        const el = (event.target as HTMLElement).closest<HTMLElement>('.tok-action[data-i]');
        if (el && onPick) {
          setCurrent(Number(el.dataset.i));
          onPick(Number(el.dataset.i));
        }
      },
    },
    children,
  );
}

/** A span's label: its turn and kind, the tool call an action makes, where a summary or carried context leads. */
function SpanLabel({ span }: { span: TraceSpan }) {
  const turn = span.turn === undefined ? '' : `turn ${span.turn} · `;
  const parts: ComponentChildren[] = [];
  if (span.kind === 'prompt') parts.push('prompt');
  else if (span.kind === 'context') parts.push(span.carriedFrom === undefined ? 'carried context' : `carried from segment ${span.carriedFrom + 1}`);
  else if (span.kind === 'action') {
    parts.push(`turn ${span.turn}`);
    const call = span.toolCall;
    if (call)
      parts.push(
        ' ',
        h(
          'code',
          { class: call.problem ? 'tool-call tool-call-broken' : 'tool-call', title: call.problem ?? 'the tool call this action makes' },
          h('b', null, call.name || '(no tool named)'),
          call.args ? ` ${call.args}` : '',
        ),
        call.problem ? h('span', { class: 'tool-problem' }, ` ✗ ${call.problem}`) : '',
      );
    if (span.ending === 'length') parts.push(' (cut off: out of tokens)');
  } else if (span.kind === 'summary')
    parts.push(`${turn}summary`, span.continuedIn === undefined ? '' : ` → segment ${span.continuedIn + 1} continues from it`);
  else parts.push(`${turn}${span.kind}`);
  return h('span', { class: 'span-label' }, parts);
}

/** The hover card: the token, its role, and every channel the run logged for it. */
export function TokenCard({ info }: { info: TokenInfo }) {
  const { sample, index } = info;
  const role = ROLE[sample.roles[index] as keyof typeof ROLE];
  const kind = sample.kinds ? KIND_OF_LETTER[sample.kinds[index] as keyof typeof KIND_OF_LETTER] : role;
  const rows = Object.entries(sample.channels).map(([name, values]) =>
    h('tr', { key: name }, h('th', null, name in CHANNELS ? CHANNELS[name as ChannelName].label : name), h('td', null, fmtSigned(values[index], 4))),
  );
  return h(
    'div',
    { class: 'token-card', role: 'tooltip', style: { left: `${info.x}px`, top: `${info.y}px` } },
    h('div', { class: 'token-card-head' }, h('code', null, JSON.stringify(pieceOf(sample, index))), ` token ${index} · ${kind}`),
    role !== 'action'
      ? h('p', null, `${kind} token: ${NO_LOSS_WHY[kind] ?? NO_LOSS_WHY[role]}, not sampled — no loss, no advantage.`)
      : rows.length > 0
        ? h('table', null, h('tbody', null, rows))
        : h(
            'p',
            null,
            `No per-token numbers were logged for this rollout${sample.phase === 'eval' ? ' (evaluation rollouts are greedy and not trained on)' : ''}.`,
          ),
  );
}
