// From what a person typed to a validated Recipe: schema defaults ← preset ← recipe file ← --set
// options, later sources winning. Every leaf remembers where its value came from, so the printed
// table can say so and an error can say which source to fix. Errors list every problem at once,
// one sentence each, with the field path and, for a misspelling, the closest real name.

import type { z } from 'zod';
import { echo, InputError, jsonDepthExceeds, showValue } from '../errors.ts';
import { closestMatch as closestWord, didYouMean as didYouMeanWord } from '../util/suggest.ts';
import { type FieldIssue, recipeChecks } from './checks.ts';
import { describeRange, RECIPE_FIELDS, RECIPE_SECTIONS, recipeField } from './fields.ts';
import { methodFieldIssues } from './method-field-check.ts';
import { DEFAULT_PRESET, isPresetName, PRESET_NAMES, PRESETS, type PresetName } from './presets.ts';
import { type Recipe, RecipeSchema } from './schema.ts';

export interface RecipeIssue extends FieldIssue {
  /** Where the offending value came from ("--set", "file run.json", "preset tiny"), if known. */
  source?: string;
}

/** A recipe that cannot be used; `message` has one sentence per issue. */
export class RecipeError extends InputError {
  constructor(
    message: string,
    readonly issues: readonly RecipeIssue[] = [],
  ) {
    super('recipe', message);
    this.name = 'InputError';
  }
}

/** path → "default" | "preset NAME" | "file NAME" | "--set" */
export type RecipeSourceMap = Record<string, string>;

export interface ResolvedRecipe {
  recipe: Recipe;
  sources: RecipeSourceMap;
}

export interface RecipeRequest {
  /** A preset name; ignored when `file` is given (the file may name its base with "extends"). */
  preset?: string;
  /**
   * A recipe file's name (for messages) and JSON text. `savedByRun`: the recipe a run saved when it
   * started (a resume), whose fields were checked then; its fields of other methods (inherited from
   * a preset of another method) are not judged again.
   */
  file?: { name: string; text: string; savedByRun?: boolean };
  /** `--set key=value` options, in order. */
  sets?: readonly string[];
}

type Tree = Record<string, unknown>;

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);
const ALL_PATHS = [...RECIPE_FIELDS.map((f) => f.path), ...RECIPE_SECTIONS.map((s) => s.path)];

// defineProperty, not assignment: a key named "__proto__" from JSON stays an own (and therefore
// unknown, rejected) key instead of replacing the prototype.
function put(target: Tree, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mergeInto(target: Tree, source: Tree, label: string, sources: Tree, prefix = ''): void {
  for (const key of Object.keys(source)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const value = source[key];
    if (isTree(value)) {
      const existing = Object.hasOwn(target, key) ? target[key] : undefined;
      const child: Tree = isTree(existing) ? existing : {};
      put(target, key, child);
      mergeInto(child, value, label, sources, path);
    } else {
      put(target, key, value);
      put(sources, path, label);
    }
  }
}

function lookup(tree: unknown, path: readonly PropertyKey[]): unknown {
  let node = tree;
  for (const key of path) {
    if (!isTree(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key as string];
  }
  return node;
}

const show = showValue;

// Suggestions only for words of a plausible length: the edit distance costs length × candidates.
const SUGGEST_CHARS = 100;
const closestMatch = (word: string, candidates: readonly string[]) => (word.length > SUGGEST_CHARS ? undefined : closestWord(word, candidates));
const didYouMean = (word: string, candidates: readonly string[]) => (word.length > SUGGEST_CHARS ? '' : didYouMeanWord(word, candidates));

/** Recipes are a few sections deep; a deeper file is refused before merging or printing it (200,000 levels once overflowed the stack). */
export const MAX_RECIPE_DEPTH = 8;

function sentence(issue: RecipeIssue): string {
  const from = issue.source && issue.source !== 'default' ? ` (from ${issue.source})` : '';
  return `${echo(issue.path)}${from} ${issue.message}${/[.?]$/.test(issue.message) ? '' : '.'}`;
}

function sourceOf(sources: RecipeSourceMap, path: string): string | undefined {
  if (Object.hasOwn(sources, path)) return sources[path];
  const below = Object.keys(sources).find((p) => p.startsWith(`${path}.`));
  return below ? sources[below] : undefined;
}

function zodIssues(error: z.ZodError, input: unknown, sources: RecipeSourceMap): RecipeIssue[] {
  const out: RecipeIssue[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = base ? `${base}.${key}` : key;
        const guess = closestMatch(path, ALL_PATHS);
        const where = base ? `in section ${base}` : 'at the top level';
        out.push({ path, message: `is not a recipe field ${where}${guess ? `; did you mean "${guess}"?` : ''}`, source: sourceOf(sources, path) });
      }
      continue;
    }
    const value = lookup(input, issue.path);
    const field = recipeField(base);
    const source = sourceOf(sources, base);
    if (!field) {
      const message =
        base === '' ? `must be an object of sections, got ${show(value)}` : `is a section and must be an object of its fields, got ${show(value)}`;
      out.push({ path: base || 'recipe', message, source });
    } else if (field.type === 'enum') {
      const hint = typeof value === 'string' ? didYouMean(value, field.options ?? []) : '';
      out.push({ path: base, message: `must be ${describeRange(field)}, got ${show(value)}${hint}`, source });
    } else if (issue.code === 'invalid_format') {
      out.push({ path: base, message: `${issue.message}, got ${show(value)}`, source });
    } else {
      out.push({ path: base, message: `must be ${describeRange(field)}, got ${show(value)}`, source });
    }
  }
  return out;
}

function fail(issues: readonly RecipeIssue[]): never {
  throw new RecipeError(issues.map(sentence).join('\n'), issues);
}

/** Validates any value as a recipe (schema, then cross-field rules); throws a RecipeError listing every issue. */
export function validateRecipe(input: unknown, sources: RecipeSourceMap = {}): Recipe {
  if (jsonDepthExceeds(input, MAX_RECIPE_DEPTH))
    throw new RecipeError(`the recipe nests objects or arrays more than ${MAX_RECIPE_DEPTH} deep; a recipe is sections of fields (see \`horizon recipe\`).`);
  const parsed = RecipeSchema.safeParse(input);
  if (!parsed.success) fail(zodIssues(parsed.error, input, sources));
  const cross = recipeChecks(parsed.data).map((i) => ({ ...i, source: sourceOf(sources, i.path) }));
  if (cross.length > 0) fail(cross);
  return parsed.data;
}

/** Parses one `--set key=value`: the path must be a field, the value is coerced to the field's type. */
export function parseSetOption(option: string): { path: string; value: unknown } {
  const eq = option.indexOf('=');
  if (eq <= 0) throw new RecipeError(`--set "${echo(option)}" must look like key=value, e.g. --set rl.clipLow=0.1.`);
  const path = option.slice(0, eq).trim();
  const raw = option.slice(eq + 1).trim();
  const field = recipeField(path);
  if (!field) {
    const section = RECIPE_SECTIONS.find((s) => s.path === path);
    if (section) {
      const example = RECIPE_FIELDS.find((f) => f.section === path || f.path.startsWith(`${path}.`))?.path;
      throw new RecipeError(`--set ${path}: "${path}" is a section; set one of its fields, e.g. --set ${example}=….`);
    }
    const hint = didYouMean(path, ALL_PATHS);
    throw new RecipeError(`--set ${echo(path)}: no such recipe field${hint || ' (`horizon train --help` lists them).'}`);
  }
  switch (field.type) {
    case 'integer':
    case 'number': {
      const value = raw === '' ? Number.NaN : Number(raw);
      if (!Number.isFinite(value)) throw new RecipeError(`--set ${path}: must be ${describeRange(field)}, got "${echo(raw)}".`);
      return { path, value };
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw new RecipeError(`--set ${path}: must be true or false, got "${echo(raw)}".`);
      return { path, value: raw === 'true' };
    default:
      return { path, value: raw };
  }
}

function parseRecipeFile(file: { name: string; text: string }): { base: PresetName; body: Tree } {
  let json: unknown;
  try {
    json = JSON.parse(file.text);
  } catch (error) {
    throw new RecipeError(`recipe file ${file.name} is not valid JSON (${echo((error as Error).message)}).`);
  }
  if (jsonDepthExceeds(json, MAX_RECIPE_DEPTH))
    throw new RecipeError(
      `recipe file ${file.name} nests objects or arrays more than ${MAX_RECIPE_DEPTH} deep; a recipe is sections of fields (see \`horizon recipe\`).`,
    );
  if (!isTree(json)) throw new RecipeError(`recipe file ${file.name} must hold a JSON object, got ${show(json)}.`);
  const { extends: base, ...body } = json as Tree & { extends?: unknown };
  if (base === undefined) return { base: DEFAULT_PRESET, body };
  if (typeof base !== 'string' || !isPresetName(base))
    throw new RecipeError(
      `recipe file ${file.name}: "extends" must name a preset (${PRESET_NAMES.join(', ')}), got ${show(base)}${(typeof base === 'string' && didYouMean(base, PRESET_NAMES)) || '.'}`,
    );
  return { base, body };
}

/** Throws the "unknown recipe" error, with a suggestion among the presets. */
export function unknownRecipe(name: string): never {
  throw new RecipeError(
    `unknown recipe "${echo(name)}" (presets: ${PRESET_NAMES.join(', ')}, or a path to a .json recipe file)${didYouMean(name, PRESET_NAMES) || '.'}`,
  );
}

/** Resolves defaults ← preset ← file ← --set into a validated recipe and the source of every field. */
export function resolveRecipe(request: RecipeRequest = {}): ResolvedRecipe {
  const sources: RecipeSourceMap = Object.fromEntries(RECIPE_FIELDS.map((f) => [f.path, 'default']));
  const tree: Tree = {};
  let base: PresetName = DEFAULT_PRESET;
  let body: Tree | undefined;
  if (request.file) ({ base, body } = parseRecipeFile(request.file));
  else if (request.preset !== undefined) {
    if (!isPresetName(request.preset)) unknownRecipe(request.preset);
    base = request.preset;
  }
  mergeInto(tree, PRESETS[base].recipe as Tree, `preset ${base}`, sources);
  if (body && request.file) mergeInto(tree, body, `file ${request.file.name}`, sources);
  for (const option of request.sets ?? []) {
    const { path, value } = parseSetOption(option);
    const keys = path.split('.');
    const leaf: Tree = {};
    let node = leaf;
    for (const key of keys.slice(0, -1)) {
      const child: Tree = {};
      put(node, key, child);
      node = child;
    }
    put(node, keys[keys.length - 1], value);
    mergeInto(tree, leaf, '--set', sources);
  }
  const recipe = validateRecipe(tree, sources);
  const savedFile = request.file?.savedByRun ? `file ${request.file.name}` : undefined;
  const foreign = methodFieldIssues(recipe, sources, (source) => source === savedFile).map((i) => ({ ...i, source: sources[i.path] }));
  if (foreign.length > 0) fail(foreign);
  return { recipe, sources };
}

/** The default preset, resolved. */
export function defaultRecipe(): Recipe {
  return resolveRecipe().recipe;
}
