// The resolved recipe as an aligned table, printed at the start of every run (docs/conventions.md §4),
// and field-by-field comparison of two recipes (resume refuses a different one).

import { formatFieldValue, RECIPE_FIELDS } from './fields.ts';
import type { RecipeSourceMap } from './resolve.ts';
import type { Recipe } from './schema.ts';

/** The value at a dotted path of a recipe. */
export function recipeValue(recipe: Recipe, path: string): unknown {
  let node: unknown = recipe;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}

/**
 * One row per field: path, value, and (when sources are given) where the value came from.
 * With `docs`, the field's one-line doc closes each row.
 */
export function formatRecipeTable(recipe: Recipe, options: { sources?: RecipeSourceMap; docs?: boolean } = {}): string {
  const rows = RECIPE_FIELDS.map((f) => [
    f.path,
    formatFieldValue(recipeValue(recipe, f.path)),
    options.sources ? (options.sources[f.path] ?? 'default') : undefined,
    options.docs ? f.doc : undefined,
  ]);
  const header = ['field', 'value', options.sources ? 'source' : undefined, options.docs ? 'doc' : undefined];
  const all = [header, ...rows];
  const columns = header.map((h, i) => (h === undefined ? -1 : Math.max(...all.map((r) => (r[i] ?? '').length))));
  const line = (r: (string | undefined)[]) =>
    r
      .map((cell, i) => (columns[i] < 0 ? undefined : i === r.length - 1 || columns.slice(i + 1).every((c) => c < 0) ? cell : (cell ?? '').padEnd(columns[i])))
      .filter((c) => c !== undefined)
      .join('  ')
      .trimEnd();
  return [`recipe ${recipe.name}`, line(header), ...rows.map(line)].join('\n');
}

export interface RecipeDifference {
  path: string;
  a: unknown;
  b: unknown;
}

/** Every field whose value differs, in schema order. */
export function recipeDifferences(a: Recipe, b: Recipe): RecipeDifference[] {
  const out: RecipeDifference[] = [];
  for (const f of RECIPE_FIELDS) {
    const va = recipeValue(a, f.path);
    const vb = recipeValue(b, f.path);
    if (!Object.is(va, vb)) out.push({ path: f.path, a: va, b: vb });
  }
  return out;
}
