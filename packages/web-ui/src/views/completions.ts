// Completions table (docs/ui.md §1, TRL #2772): one row per logged rollout with its token strip, reward
// and ending; a channel picker colours every strip on one shared scale, so strips compare. A
// multi-turn rollout is drawn from core's trace view: one labelled span per line (turns, tool calls,
// greyed environment text, summaries, carried context), the segments of a compacted trajectory
// (records of one rollout at one step) in one row under `segment k/n` headers.

import { groupSegments, isSingleTurn, type MetricsRecord, segmentOfRecord, statusLabel, type Trace, traceOf } from '@horizon/core';
import { h } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { ReplaySample, RolloutGaeAnswer, RolloutGaeRequest } from '../engine/api.ts';
import { CHANNEL_NAMES, CHANNELS, type ChannelName, divergingColor } from './colors.ts';
import { fmt } from './format.ts';
import { TokenAdvantage } from './token-advantage.ts';
import { channelExtent, TokenCard, type TokenInfo, TokenStrip } from './token-strip.ts';

const PAGE = 40;

/** The shown records as rollouts: the segments of one rollout at one step together, with their trace. */
export function rolloutsOf(samples: readonly ReplaySample[]): { segments: ReplaySample[]; trace: Trace }[] {
  return groupSegments(samples, (s) => `${s.phase}:${s.step}:${s.rolloutId}`).map((segments) => ({ segments, trace: traceOf(segments.map(segmentOfRecord)) }));
}

function Legend({ channel, extent }: { channel: ChannelName; extent: number }) {
  const c = CHANNELS[channel];
  const at = (t: number) => (c.log ? c.center * Math.exp(t * extent) : c.center + t * extent);
  const stops = [-1, -0.5, 0, 0.5, 1];
  return h(
    'div',
    { class: 'legend', 'aria-label': 'colour legend' },
    h(
      'span',
      { class: 'legend-scale' },
      h('span', { class: 'legend-bar', style: { background: `linear-gradient(to right, ${stops.map((t) => divergingColor(t)).join(', ')})` } }),
      h(
        'span',
        { class: 'legend-ticks' },
        stops.map((t) => h('span', { key: t }, fmt(at(t), 2))),
      ),
    ),
    h(
      'span',
      { class: 'legend-keys' },
      h('span', { class: 'tok tok-action sign-pos', style: { background: divergingColor(0.8), color: '#fff' } }, `above ${fmt(c.center, 0)}`),
      h('span', { class: 'tok tok-action sign-neg', style: { background: divergingColor(-0.8), color: '#fff' } }, `below ${fmt(c.center, 0)}`),
      h('span', { class: 'tok tok-prompt' }, 'prompt'),
      h('span', { class: 'tok tok-observation' }, 'observation'),
      ' (not trained on)',
    ),
  );
}

/** `initialFilter`: the rollouts to open with, e.g. "rl:3" when a chart point was clicked (docs/ui.md §14). */
export interface CompletionsProps {
  samples: readonly ReplaySample[];
  initialFilter?: string | null;
  /** The run's recipe and rows: a picked token's advantage is rebuilt from them (token-advantage.ts). */
  recipe?: Record<string, unknown>;
  records?: readonly MetricsRecord[];
  compute?: (request: RolloutGaeRequest) => Promise<RolloutGaeAnswer>;
}

export function Completions({ samples, initialFilter = null, recipe, records, compute }: CompletionsProps) {
  const available = useMemo(() => CHANNEL_NAMES.filter((c) => samples.some((s) => s.channels[c])), [samples]);
  const [chosen, setChosen] = useState<ChannelName>('advantage');
  const channel = available.includes(chosen) ? chosen : (available[0] ?? 'advantage');
  // Filters: every rollout, the training (RL) rollouts, or one phase and step ("rl:3", "eval:0").
  const groups = useMemo(() => [...new Set(samples.map((s) => `${s.phase}:${s.step}`))], [samples]);
  const hasRl = samples.some((s) => s.phase === 'rl');
  const [filter, setFilter] = useState<string | null>(initialFilter);
  const active = filter ?? (hasRl ? 'rl' : 'all'); // training rollouts first: they carry the channels
  const [page, setPage] = useState(0);
  const [hover, setHover] = useState<TokenInfo | null>(null);
  const [explained, setExplained] = useState<{ sample: ReplaySample; index: number } | null>(null);
  const shown = useMemo(
    () => samples.filter((s) => active === 'all' || (active === 'rl' ? s.phase === 'rl' : `${s.phase}:${s.step}` === active)),
    [samples, active],
  );
  const extent = useMemo(() => channelExtent(shown, channel), [shown, channel]);
  const rollouts = useMemo(() => rolloutsOf(shown), [shown]);
  const rows = rollouts.slice(page * PAGE, (page + 1) * PAGE);
  const pages = Math.max(1, Math.ceil(rollouts.length / PAGE));

  if (samples.length === 0) return h('p', { class: 'empty' }, 'This run has no samples.jsonl, so there are no completions to show.');
  return h(
    'section',
    { class: 'completions', 'aria-label': 'Completions' },
    h(
      'div',
      { class: 'toolbar' },
      h(
        'fieldset',
        { class: 'channel-picker' },
        h('legend', null, 'Colour tokens by'),
        CHANNEL_NAMES.map((c) =>
          h(
            'label',
            { key: c, class: available.includes(c) ? '' : 'disabled', title: available.includes(c) ? CHANNELS[c].label : 'not logged in this run' },
            h('input', { type: 'radio', name: 'channel', value: c, checked: c === channel, disabled: !available.includes(c), onChange: () => setChosen(c) }),
            CHANNELS[c].label,
          ),
        ),
      ),
      h(
        'label',
        null,
        'Rollouts ',
        h(
          'select',
          {
            name: 'rollouts',
            value: active,
            onChange: (e: Event) => {
              setFilter((e.target as HTMLSelectElement).value);
              setPage(0);
            },
          },
          hasRl ? h('option', { value: 'rl' }, 'training (RL), every step') : null,
          h('option', { value: 'all' }, 'all, evaluation included'),
          groups.map((g) => h('option', { key: g, value: g }, g.replace(':', ' step '))),
          filter && !groups.includes(filter) && filter !== 'rl' && filter !== 'all'
            ? h('option', { value: filter }, `${filter.replace(':', ' step ')} (no rollouts logged)`)
            : null,
        ),
      ),
    ),
    available.length > 0 ? h(Legend, { channel, extent }) : h('p', { class: 'note' }, 'This run logged no per-token channels; tokens are shown uncoloured.'),
    explained && compute
      ? h(TokenAdvantage, {
          sample: explained.sample,
          index: explained.index,
          recipe: recipe ?? {},
          records: records ?? [],
          compute,
          onClose: () => setExplained(null),
        })
      : compute
        ? h('p', { class: 'note' }, 'Click an action token, or press Enter on it, to see how its advantage was computed.')
        : null,
    h(
      'table',
      { class: 'samples' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { class: 'narrow' }, 'step'),
          h('th', { class: 'narrow' }, 'rollout'),
          h('th', null, 'tokens'),
          h('th', { class: 'narrow num' }, 'reward'),
          h('th', { class: 'narrow' }, 'ended'),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map(({ segments, trace }) => {
          const s = segments[0];
          const strip = (sample: ReplaySample, spans?: Trace['segments'][number]['spans']) =>
            h(TokenStrip, {
              sample,
              channel,
              extent,
              onHover: setHover,
              ...(spans ? { spans } : {}),
              ...(compute ? { onPick: (index: number) => setExplained({ sample, index }) } : {}),
            });
          return h(
            'tr',
            { key: `${s.step}-${s.rolloutId}-${s.phase}` },
            h('td', null, `${s.phase === 'rl' ? '' : `${s.phase} `}${s.step}`),
            h('td', null, s.rolloutId),
            h(
              'td',
              null,
              isSingleTurn(trace)
                ? strip(s)
                : h(
                    'div',
                    { class: 'trace', 'aria-label': `rollout ${s.rolloutId}: ${trace.turns} turns` },
                    trace.segments.map((segment) =>
                      h(
                        'div',
                        { key: segment.index, class: 'trace-segment' },
                        trace.segmentCount > 1
                          ? h(
                              'div',
                              { class: 'segment-head' },
                              `segment ${segment.index + 1}/${trace.segmentCount} · ${segment.pieces.length} tokens · ${statusLabel(segment)}`,
                            )
                          : null,
                        strip(segments[segment.input], segment.spans),
                      ),
                    ),
                    // Sub-agents (core's delegate tool): each context under a label naming the call that started it.
                    trace.branches.map((branch) =>
                      h(
                        'div',
                        { key: branch.branch, class: 'trace-segment' },
                        h(
                          'div',
                          { class: 'segment-head' },
                          `sub-agent ${branch.branch} · started by ${branch.parent.branch} at turn ${branch.parent.turn} · ${branch.segment.pieces.length} tokens · ${statusLabel(branch.segment)}`,
                        ),
                        strip(segments[branch.segment.input], branch.segment.spans),
                      ),
                    ),
                  ),
            ),
            h('td', { class: 'num' }, fmt(trace.reward, 2)),
            h('td', null, statusLabel(trace)),
          );
        }),
      ),
    ),
    pages > 1
      ? h(
          'nav',
          { class: 'pager' },
          h('button', { type: 'button', disabled: page === 0, onClick: () => setPage(page - 1) }, '← previous'),
          ` page ${page + 1} of ${pages} `,
          h('button', { type: 'button', disabled: page + 1 >= pages, onClick: () => setPage(page + 1) }, 'next →'),
        )
      : null,
    hover ? h(TokenCard, { info: hover }) : null,
  );
}
