// Compare runs (docs/ui.md §14): two or more runs — shipped replays (PPO, GRPO and RLOO on the same
// seed and budget), saved runs, the live run — overlaid on one set of dashboard charts, one colour
// and line style per run, with the recipe fields that differ between them.

import { h } from 'preact';
import { useMemo } from 'preact/hooks';
import type { RunSummary, RunView } from '../engine/api.ts';
import { Dashboard, RUN_COLORS } from './dashboard.ts';

/** A recipe as "path" → printed value, leaves only. */
export function flattenRecipe(recipe: Record<string, unknown>, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(recipe)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const [p, v] of flattenRecipe(value as Record<string, unknown>, path)) out.set(p, v);
    else out.set(path, JSON.stringify(value));
  }
  return out;
}

/** The recipe fields whose values are not all the same, with each run's value ("—" where absent). */
export function recipeDiff(recipes: readonly Record<string, unknown>[]): { path: string; values: string[] }[] {
  const flat = recipes.map((r) => flattenRecipe(r));
  const paths = [...new Set(flat.flatMap((f) => [...f.keys()]))];
  return paths.map((path) => ({ path, values: flat.map((f) => f.get(path) ?? '—') })).filter((row) => new Set(row.values).size > 1);
}

/** A run's legend label: its recipe name ("add-grpo"), numbered when two runs share one. */
export function shortLabel(view: RunView, all: readonly RunView[], i: number): string {
  const name = (v: RunView) => (typeof v.recipe.name === 'string' ? v.recipe.name : v.summary.name);
  const same = all.filter((v) => name(v) === name(view));
  return same.length > 1 ? `${name(view)} #${all.slice(0, i + 1).filter((v) => name(v) === name(view)).length}` : name(view);
}

export interface CompareProps {
  /** Every run that can be overlaid. */
  options: readonly RunSummary[];
  selected: readonly string[];
  /** Loaded runs by id (a selected run not here yet is loading). */
  views: ReadonlyMap<string, RunView>;
  onSelect: (ids: string[]) => void;
}

export function Compare({ options, selected, views, onSelect }: CompareProps) {
  const shown = selected.map((id) => views.get(id)).filter((v): v is RunView => v !== undefined);
  const runs = useMemo(
    () => shown.map((v, i) => ({ label: shortLabel(v, shown, i), records: v.records })),
    [shown.map((v) => `${v.summary.id}:${v.records.length}`).join()],
  );
  const diff = useMemo(() => recipeDiff(shown.map((v) => v.recipe)), [shown.map((v) => v.summary.id).join()]);
  const toggle = (id: string, on: boolean) => onSelect(on ? [...selected, id] : selected.filter((s) => s !== id));
  return h(
    'section',
    { class: 'compare', 'aria-label': 'Compare runs' },
    h(
      'fieldset',
      { class: 'compare-picker' },
      h('legend', null, 'Overlay runs'),
      options.map((o) => {
        const i = shown.findIndex((v) => v.summary.id === o.id);
        return h(
          'label',
          { key: o.id, title: o.origin },
          h('input', {
            type: 'checkbox',
            name: 'compare',
            value: o.id,
            checked: selected.includes(o.id),
            onChange: (e: Event) => toggle(o.id, (e.target as HTMLInputElement).checked),
          }),
          i >= 0
            ? h('span', { class: `swatch${i % 2 === 1 ? ' dashed' : ''}`, style: { borderColor: RUN_COLORS[i % RUN_COLORS.length] }, 'aria-hidden': 'true' })
            : null,
          ` ${o.name}`,
          h('span', { class: 'note' }, o.source === 'bundled' ? ' · shipped replay' : o.source === 'live' ? ' · trained here' : ' · opened replay'),
        );
      }),
    ),
    shown.length < 2
      ? h('p', { class: 'note', role: 'status' }, selected.length >= 2 ? 'Loading the runs…' : 'Pick two or more runs to overlay them.')
      : h(
          'div',
          null,
          h(
            'table',
            { class: 'recipe-diff', 'data-testid': 'recipe-diff' },
            h('caption', null, diff.length === 0 ? 'The recipes are the same.' : `Recipe fields that differ (${diff.length})`),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, 'field'),
                shown.map((v) => h('th', { key: v.summary.id, scope: 'col' }, v.summary.name)),
              ),
            ),
            h(
              'tbody',
              null,
              diff.map((row) =>
                h(
                  'tr',
                  { key: row.path, 'data-path': row.path },
                  h('th', { scope: 'row' }, h('code', null, row.path)),
                  row.values.map((v, i) => h('td', { key: i }, h('code', null, v))),
                ),
              ),
            ),
          ),
          h(Dashboard, { runs }),
        ),
  );
}
