// Playground recipe panel: pick a preset, edit its documented fields, see every validation error
// next to its field. Field docs, ranges and checks are core's (recipe/fields.ts, resolve.ts), the
// same the CLI help prints, so the panel and `horizon train --help` cannot disagree.

import {
  DEFAULT_PRESET,
  describeRange,
  formatFieldValue,
  isInputError,
  isPresetName,
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
  const errors = new Map<string, string[]>();
  const raw = new Map<string, string>();
  const add = (path: string, message: string) => errors.set(path, [...(errors.get(path) ?? []), message]);
  // An unknown preset (a hand-edited ?recipe=) is an error on the preset, not a blank page: the
  // fields show the default preset's values meanwhile.
  const known = isPresetName(choice.recipe);
  if (!known) add('preset', unknownPresetMessage(choice.recipe));
  const preset = known ? choice.recipe : DEFAULT_PRESET;
  const base = resolveRecipe({ preset }).recipe;
  let good: string[] = [];
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
  // The schema stops at its own errors before the cross-field rules run (λ = 1.5 hides "minibatches
  // must divide…"), so the fields it refused are dropped and the rest checked again, until nothing
  // new is found: every problem shows at once.
  let recipe: Recipe | null = null;
  for (let round = 0; round < 4; round++) {
    try {
      recipe = resolveRecipe({ preset, sets: good }).recipe;
      break;
    } catch (error) {
      if (!isInputError(error)) throw error;
      const issues = (error as { issues?: readonly RecipeIssue[] }).issues ?? [];
      for (const issue of issues) add(issue.path, issue.message);
      if (issues.length === 0) {
        add('', error.message);
        break;
      }
      const refused = new Set(issues.map((i) => i.path));
      const kept = good.filter((s) => !refused.has(pathOf(s)));
      if (kept.length === good.length) break; // a cross-field rule on the preset's own values: nothing to drop
      good = kept;
    }
  }
  return { recipe: errors.size === 0 ? recipe : null, errors, raw, base };
}

/** One sentence for an unknown preset name, listing the real ones. */
export function unknownPresetMessage(name: string): string {
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return `There is no preset "${shown}"; pick one of ${PRESET_NAMES.join(', ')}. The fields below show ${DEFAULT_PRESET} until you do.`;
}

/** Errors on paths that are no field (a misspelt `set=` in the URL, the preset): shown above the fields. */
export function strayErrors(check: RecipeCheck): [string, string[]][] {
  return [...check.errors].filter(([path]) => !RECIPE_FIELDS.some((f) => f.path === path));
}

/** The edit list after setting `path` to `text`: dropped when it equals the preset's value. */
export function applyEdit(choice: RecipeChoice, base: Recipe, path: string, text: string): string[] {
  const rest = choice.sets.filter((s) => pathOf(s) !== path);
  return text === formatFieldValue(recipeValue(base, path)) || text === String(recipeValue(base, path)) ? rest : [...rest, `${path}=${text}`];
}

/**
 * The knobs a learner turns first, with what to expect when they do (docs/ui.md §5, progressive
 * disclosure); every other field sits behind the "every field" toggle. Slider ranges are the UI's
 * choice of a useful span, inside the field's own range (core still validates the value).
 */
export const KEY_KNOBS: readonly { path: string; expect: string; slider?: { min: number; max: number; step: number } }[] = [
  {
    path: 'rl.algorithm',
    expect: 'PPO also trains a critic for per-token credit (GAE); GRPO and RLOO compare rollouts of the same prompt and need groupSize ≥ 2.',
  },
  {
    path: 'sft.steps',
    expect:
      'The supervised warm start. More steps: higher success before RL and less for RL to fix; 0 starts RL from random weights, where reward stays near 0.',
    slider: { min: 0, max: 1000, step: 10 },
  },
  {
    path: 'rl.iterations',
    expect: 'Rollout + update rounds. Success usually climbs over the first tens of iterations.',
    slider: { min: 1, max: 400, step: 1 },
  },
  {
    path: 'rl.klCoef',
    expect: 'Weight of the leash to the SFT policy. Higher: KL stays small and reward rises slower; 0: nothing stops drift.',
    slider: { min: 0, max: 0.2, step: 0.005 },
  },
  { path: 'rl.policyLr', expect: 'Too high and KL jumps and reward collapses; too low and the charts barely move.' },
  { path: 'seed', expect: 'Same seed, same recipe, same device: the same run. Change it to see run-to-run spread.' },
];

function FieldInput({ field, value, onEdit, disabled }: { field: RecipeField; value: string; onEdit: (text: string) => void; disabled: boolean }) {
  const common = { id: `field-${field.path}`, name: field.path, 'aria-describedby': `doc-${field.path}`, disabled };
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

function Slider({
  field,
  value,
  range,
  onEdit,
  disabled,
}: {
  field: RecipeField;
  value: string;
  range: { min: number; max: number; step: number };
  onEdit: (text: string) => void;
  disabled: boolean;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const n = Number(value);
  return h('input', {
    type: 'range',
    class: 'knob-slider',
    min: range.min,
    max: range.max,
    step: range.step,
    value: draft ?? (Number.isFinite(n) ? n : range.min),
    disabled,
    'aria-label': `${field.path} slider`,
    'aria-describedby': `doc-${field.path}`,
    onInput: (e: Event) => setDraft((e.target as HTMLInputElement).value),
    onChange: (e: Event) => {
      setDraft(null);
      onEdit((e.target as HTMLInputElement).value);
    },
  });
}

export interface RecipePanelProps {
  choice: RecipeChoice;
  onChange: (choice: RecipeChoice) => void;
  /** Why the fields cannot be edited now (a live run uses them), or null. */
  locked?: string | null;
}

export function RecipePanel({ choice, onChange, locked = null }: RecipePanelProps) {
  const check = useMemo(() => checkChoice(choice), [choice]);
  const disabled = locked !== null;
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
  const drop = (path: string) =>
    path === 'preset'
      ? onChange({ ...choice, recipe: DEFAULT_PRESET })
      : onChange({ ...choice, ...(path === 'seed' ? { seed: undefined } : {}), sets: choice.sets.filter((s) => pathOf(s) !== path) });
  const sections = RECIPE_SECTIONS.filter((s) => RECIPE_FIELDS.some((f) => f.section === s.path));
  const groups = [{ path: '', doc: 'the run' }, ...sections];
  const stray = strayErrors(check);
  const keyPaths = new Set(KEY_KNOBS.map((k) => k.path));
  const row = (f: RecipeField, label: string, extra?: { expect: string; slider?: { min: number; max: number; step: number } }) => {
    const errors = check.errors.get(f.path);
    const edited = check.raw.has(f.path);
    return h(
      'div',
      { key: f.path, class: `field${errors ? ' invalid' : ''}${edited ? ' edited' : ''}${extra ? ' knob' : ''}`, 'data-field': f.path },
      h('label', { for: `field-${f.path}` }, h('code', null, label)),
      h(
        'span',
        { class: 'field-inputs' },
        extra?.slider ? h(Slider, { field: f, value: valueText(f.path), range: extra.slider, onEdit: (text) => edit(f.path, text), disabled }) : null,
        h(FieldInput, { field: f, value: valueText(f.path), onEdit: (text) => edit(f.path, text), disabled }),
      ),
      h(
        'span',
        { class: 'field-doc', id: `doc-${f.path}` },
        `${f.doc} (${describeRange(f)}; default ${formatFieldValue(f.default)})`,
        extra ? h('span', { class: 'expect' }, ` ${extra.expect}`) : null,
      ),
      errors ? h('span', { class: 'field-error', role: 'alert' }, errors.join(' ')) : null,
    );
  };
  const field = (path: string) => RECIPE_FIELDS.find((f) => f.path === path);
  const problems = check.errors.size;
  const hiddenErrors = RECIPE_FIELDS.some((f) => !keyPaths.has(f.path) && (check.errors.has(f.path) || check.raw.has(f.path)));
  return h(
    'section',
    { class: `recipe-panel${disabled ? ' locked' : ''}`, 'aria-label': 'Recipe' },
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
            value: isPresetName(choice.recipe) ? choice.recipe : '',
            disabled,
            onChange: (e: Event) => onChange({ recipe: (e.target as HTMLSelectElement).value, seed: choice.seed, sets: [] }),
          },
          isPresetName(choice.recipe) ? null : h('option', { value: '' }, '— choose —'),
          PRESET_NAMES.map((p) => h('option', { key: p, value: p }, p)),
        ),
      ),
      h('span', { class: 'note preset-doc' }, PRESETS[choice.recipe as keyof typeof PRESETS]?.doc ?? ''),
      h(
        'span',
        { class: `recipe-status ${check.recipe ? 'ok' : 'bad'}`, role: 'status' },
        check.recipe ? '✓ valid recipe' : `✗ ${problems} field${problems === 1 ? '' : 's'} to fix`,
      ),
    ),
    locked ? h('p', { class: 'note locked-why', 'data-testid': 'recipe-locked' }, h('span', { 'aria-hidden': 'true' }, '🔒 '), locked) : null,
    stray.length > 0
      ? h(
          'ul',
          { class: 'stray-errors', role: 'alert' },
          stray.map(([path, messages]) =>
            h(
              'li',
              { key: path, class: 'error', 'data-stray': path },
              path === '' ? '' : h('code', null, path === 'preset' ? `recipe=${choice.recipe}` : `${path}=${check.raw.get(path) ?? ''}`),
              path === '' ? '' : ': ',
              messages.join(' '),
              path === '' || disabled
                ? null
                : h(
                    'button',
                    { type: 'button', class: 'drop-edit', onClick: () => drop(path) },
                    path === 'preset' ? `use ${DEFAULT_PRESET}` : 'remove this edit',
                  ),
            ),
          ),
        )
      : null,
    h(
      'div',
      { class: 'knobs', role: 'group', 'aria-label': 'Key knobs' },
      h('h3', null, 'Key knobs'),
      KEY_KNOBS.map((k) => {
        const f = field(k.path);
        return f ? row(f, k.path, k) : null;
      }),
    ),
    h(
      'details',
      { class: 'all-fields', open: hiddenErrors },
      h('summary', null, `Every field (${RECIPE_FIELDS.length}), by section`),
      groups.map((g) =>
        h(
          'details',
          {
            key: g.path,
            class: 'recipe-section',
            open: RECIPE_FIELDS.some((f) => f.section === g.path && !keyPaths.has(f.path) && (check.errors.has(f.path) || check.raw.has(f.path))),
          },
          h('summary', null, h('code', null, g.path || 'run'), ` — ${g.doc}`),
          RECIPE_FIELDS.filter((f) => f.section === g.path && !keyPaths.has(f.path)).map((f) => row(f, f.path.slice(g.path ? g.path.length + 1 : 0))),
        ),
      ),
    ),
  );
}
