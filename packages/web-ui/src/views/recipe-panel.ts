// Playground recipe panel: pick a preset, edit its documented fields, see every validation error
// next to its field. Field docs, ranges and checks are core's (recipe/fields.ts, resolve.ts), the
// same the CLI help prints, so the panel and `horizon train --help` cannot disagree.

import {
  describeRange,
  formatFieldValue,
  isInputError,
  PRESET_NAMES,
  PRESETS,
  parseSetOption,
  RECIPE_FIELDS,
  RECIPE_SECTIONS,
  type Recipe,
  type RecipeField,
  type RecipeIssue,
  recipeValue,
  resolveRecipe,
} from '@horizon/core';
import { h } from 'preact';
import { useMemo, useState } from 'preact/hooks';

export interface RecipeChoice {
  recipe: string;
  seed: number | undefined;
  sets: string[];
}

export interface RecipeCheck {
  /** The resolved recipe when every field is valid. */
  recipe: Recipe | null;
  /** field path → sentences. */
  errors: Map<string, string[]>;
  /** path → the raw text the user set (shown in the input even when invalid). */
  raw: Map<string, string>;
  /** The preset's own values, to tell edited fields apart. */
  base: Recipe;
}

const pathOf = (set: string) => set.slice(0, set.indexOf('='));

/** Resolves preset + seed + edits; errors are collected per field instead of thrown. */
export function checkChoice(choice: RecipeChoice): RecipeCheck {
  const base = resolveRecipe({ preset: choice.recipe }).recipe;
  const errors = new Map<string, string[]>();
  const raw = new Map<string, string>();
  const add = (path: string, message: string) => errors.set(path, [...(errors.get(path) ?? []), message]);
  const good: string[] = [];
  const sets = [...(choice.seed !== undefined ? [`seed=${choice.seed}`] : []), ...choice.sets];
  for (const s of sets) {
    raw.set(pathOf(s), s.slice(s.indexOf('=') + 1));
    try {
      parseSetOption(s);
      good.push(s);
    } catch (error) {
      add(pathOf(s), (error as Error).message.replace(/^--set [^:]+: /, ''));
    }
  }
  let recipe: Recipe | null = null;
  try {
    recipe = resolveRecipe({ preset: choice.recipe, sets: good }).recipe;
  } catch (error) {
    if (!isInputError(error)) throw error;
    const issues = (error as { issues?: readonly RecipeIssue[] }).issues ?? [];
    for (const issue of issues) add(issue.path, issue.message);
    if (issues.length === 0) add('', error.message);
  }
  return { recipe: errors.size === 0 ? recipe : null, errors, raw, base };
}

/** The edit list after setting `path` to `text`: dropped when it equals the preset's value. */
export function applyEdit(choice: RecipeChoice, base: Recipe, path: string, text: string): string[] {
  const rest = choice.sets.filter((s) => pathOf(s) !== path);
  return text === formatFieldValue(recipeValue(base, path)) || text === String(recipeValue(base, path)) ? rest : [...rest, `${path}=${text}`];
}

function FieldInput({ field, value, onEdit }: { field: RecipeField; value: string; onEdit: (text: string) => void }) {
  const common = { id: `field-${field.path}`, name: field.path, 'aria-describedby': `doc-${field.path}` };
  const [draft, setDraft] = useState<string | null>(null);
  const commit = (e: Event) => onEdit((e.target as HTMLInputElement).value.trim());
  if (field.type === 'boolean')
    return h('input', {
      ...common,
      type: 'checkbox',
      checked: value === 'true',
      onChange: (e: Event) => onEdit(String((e.target as HTMLInputElement).checked)),
    });
  if (field.type === 'enum')
    return h(
      'select',
      { ...common, value, onChange: commit },
      (field.options ?? []).map((o) => h('option', { key: o, value: o }, o)),
    );
  // What the user is typing stays a draft until committed (Enter or leaving the field): the page
  // re-renders whenever the worker reports something, and a controlled input would snap back.
  return h('input', {
    ...common,
    type: 'text',
    inputMode: field.type === 'string' ? 'text' : 'decimal',
    value: draft ?? value,
    spellcheck: false,
    onInput: (e: Event) => setDraft((e.target as HTMLInputElement).value),
    onChange: (e: Event) => {
      setDraft(null);
      commit(e);
    },
  });
}

export function RecipePanel({ choice, onChange }: { choice: RecipeChoice; onChange: (choice: RecipeChoice) => void }) {
  const check = useMemo(() => checkChoice(choice), [choice]);
  const valueText = (path: string) => check.raw.get(path) ?? formatFieldValue(recipeValue(check.recipe ?? check.base, path));
  const edit = (path: string, text: string) => {
    if (path === 'seed') {
      // The seed lives in its own URL parameter; an invalid one stays an edit so its error shows.
      const sets = choice.sets.filter((s) => pathOf(s) !== 'seed');
      if (text === String(check.base.seed)) onChange({ ...choice, seed: undefined, sets });
      else if (/^\d+$/.test(text)) onChange({ ...choice, seed: Number(text), sets });
      else onChange({ ...choice, seed: undefined, sets: [...sets, `seed=${text}`] });
      return;
    }
    onChange({ ...choice, sets: applyEdit(choice, check.base, path, text) });
  };
  const sections = RECIPE_SECTIONS.filter((s) => RECIPE_FIELDS.some((f) => f.section === s.path));
  const groups = [{ path: '', doc: 'the run' }, ...sections];
  const general = check.errors.get('');
  return h(
    'section',
    { class: 'recipe-panel', 'aria-label': 'Recipe' },
    h(
      'div',
      { class: 'preset-row' },
      h(
        'label',
        null,
        'Preset ',
        h(
          'select',
          {
            name: 'preset',
            value: choice.recipe,
            onChange: (e: Event) => onChange({ recipe: (e.target as HTMLSelectElement).value, seed: choice.seed, sets: [] }),
          },
          PRESET_NAMES.map((p) => h('option', { key: p, value: p }, p)),
        ),
      ),
      h('span', { class: 'note' }, PRESETS[choice.recipe as keyof typeof PRESETS]?.doc ?? ''),
      h(
        'span',
        { class: `recipe-status ${check.recipe ? 'ok' : 'bad'}`, role: 'status' },
        check.recipe ? '✓ valid recipe' : `✗ ${check.errors.size} field${check.errors.size === 1 ? '' : 's'} to fix`,
      ),
    ),
    general ? h('p', { class: 'error', role: 'alert' }, general.join(' ')) : null,
    groups.map((g) =>
      h(
        'details',
        {
          key: g.path,
          class: 'recipe-section',
          open: g.path === '' || g.path === 'rl' || RECIPE_FIELDS.some((f) => f.section === g.path && check.errors.has(f.path)),
        },
        h('summary', null, h('code', null, g.path || 'run'), ` — ${g.doc}`),
        RECIPE_FIELDS.filter((f) => f.section === g.path).map((f) => {
          const errors = check.errors.get(f.path);
          const edited = check.raw.has(f.path);
          return h(
            'div',
            { key: f.path, class: `field${errors ? ' invalid' : ''}${edited ? ' edited' : ''}`, 'data-field': f.path },
            h('label', { for: `field-${f.path}` }, h('code', null, f.path.slice(g.path ? g.path.length + 1 : 0))),
            h(FieldInput, { field: f, value: valueText(f.path), onEdit: (text) => edit(f.path, text) }),
            h('span', { class: 'field-doc', id: `doc-${f.path}` }, `${f.doc} (${describeRange(f)}; default ${formatFieldValue(f.default)})`),
            errors ? h('span', { class: 'field-error', role: 'alert' }, errors.join(' ')) : null,
          );
        }),
      ),
    ),
  );
}
