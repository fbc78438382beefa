// The run-state badge (docs/ui.md §12): the state in words and a glyph, so it reads without colour.

import { h } from 'preact';
import type { RunStateInfo } from '../state/run-state.ts';

const GLYPH = { idle: '○', running: '●', paused: '❚❚', finished: '✓', diverged: '⚠', failed: '✗', interrupted: '◐' } as const;

/** `scope` names whose state it is ("live run", "replay"), so two badges on one page cannot be confused. */
export function RunBadge({ info, scope, testId }: { info: RunStateInfo; scope: string; testId: string }) {
  return h(
    'span',
    {
      class: `badge badge-${info.state}`,
      title: info.why,
      'data-state': info.state,
      'data-testid': testId,
      'aria-label': `${scope}: ${info.state}. ${info.why}`,
    },
    h('span', { class: 'badge-scope' }, `${scope} `),
    h('span', { 'aria-hidden': 'true' }, GLYPH[info.state]),
    ` ${info.state}`,
  );
}
