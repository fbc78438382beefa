// The run-state badge (docs/ui.md §12): the state in words and a glyph, so it reads without colour.

import { h } from 'preact';
import type { RunStateInfo } from '../state/run-state.ts';

const GLYPH = { idle: '○', running: '●', paused: '❚❚', finished: '✓', diverged: '⚠', failed: '✗' } as const;

export function RunBadge({ info }: { info: RunStateInfo }) {
  return h(
    'span',
    { class: `badge badge-${info.state}`, title: info.why, 'data-state': info.state },
    h('span', { 'aria-hidden': 'true' }, GLYPH[info.state]),
    ` ${info.state}`,
  );
}
