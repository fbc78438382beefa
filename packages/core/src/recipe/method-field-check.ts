// "A field of another method is an error naming it": a method-specific field (method-fields.ts) that
// a preset, a recipe file or --set sets explicitly, while the recipe's method does not read it, would
// be silently ignored, so the recipe is refused with one sentence naming the field, the methods that
// read it and the recipe's rl.algorithm. Defaults never trigger it, and neither does a value equal to
// the default (a recipe file written by `horizon recipe --json` lists every field). A preset's fields
// are judged against the preset's own method: `--recipe tiny --set rl.algorithm=grpo` inherits tiny's
// PPO settings without having set them.

import { echo } from '../errors.ts';
import type { FieldIssue } from './checks.ts';
import { recipeField } from './fields.ts';
import { methodsReading } from './method-fields.ts';
import { isPresetName, PRESETS } from './presets.ts';
import type { AlgorithmName, Recipe } from './schema.ts';

/** path → "default" | "preset NAME" | "file NAME" | "--set", as resolve.ts records it. */
type Sources = Readonly<Record<string, string>>;

function leaf(recipe: Recipe, path: string): unknown {
  let node: unknown = recipe;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}

/** The method a preset selects (its own rl.algorithm, else the schema default). */
function presetAlgorithm(name: string): AlgorithmName | undefined {
  if (!isPresetName(name)) return undefined;
  const rl = (PRESETS[name].recipe as { rl?: { algorithm?: AlgorithmName } }).rl;
  return rl?.algorithm ?? (recipeField('rl.algorithm')?.default as AlgorithmName);
}

/** Every explicitly set field that only other methods read; `skip` exempts sources (a run's own saved recipe). */
export function methodFieldIssues(recipe: Recipe, sources: Sources, skip: (source: string) => boolean = () => false): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [path, source] of Object.entries(sources)) {
    if (source === 'default' || skip(source)) continue;
    const readers = methodsReading(path);
    const field = recipeField(path);
    if (!readers || !field || leaf(recipe, path) === field.default) continue;
    const preset = source.startsWith('preset ') ? source.slice('preset '.length) : undefined;
    const algorithm = (preset !== undefined ? presetAlgorithm(preset) : undefined) ?? recipe.rl.algorithm;
    if (readers.includes(algorithm)) continue;
    const whose = preset !== undefined ? `preset ${echo(preset)}'s` : "this recipe's";
    issues.push({ path, message: `is read by ${readers.join(', ')}; ${whose} rl.algorithm is ${algorithm}` });
  }
  return issues;
}
