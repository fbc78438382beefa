// Field docs as plain data, derived from the schema's JSON Schema so they cannot drift from what
// validation accepts: the CLI help lists them, the recipe table prints their paths, the web UI
// builds its controls and tooltips from them.

import { z } from 'zod';
import { methodsReading } from './method-fields.ts';
import { RecipeSchema } from './schema.ts';

export type FieldType = 'integer' | 'number' | 'boolean' | 'string' | 'enum';

export interface RecipeField {
  /** Dotted path, e.g. "rl.clipLow". */
  path: string;
  /** The section path it belongs to, e.g. "rl" ("" for top-level fields). */
  section: string;
  type: FieldType;
  /** One-line doc. */
  doc: string;
  default: number | boolean | string;
  /** Inclusive bounds, where the field has them. */
  min?: number;
  max?: number;
  /** A strict lower bound (the value must exceed it), e.g. learning rates > 0. */
  exclusiveMin?: number;
  /** Allowed values of an enum field. */
  options?: readonly string[];
}

export interface RecipeSection {
  path: string;
  doc: string;
}

interface JsonSchemaNode {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  enum?: string[];
  properties?: Record<string, JsonSchemaNode>;
}

/** The recipe schema as JSON Schema (draft 2020-12), input side: every field optional with its default. */
export const RECIPE_JSON_SCHEMA = z.toJSONSchema(RecipeSchema, { io: 'input' }) as Record<string, unknown>;

const fields: RecipeField[] = [];
const sections: RecipeSection[] = [];

function walk(node: JsonSchemaNode, prefix: string): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (child.type === 'object') {
      sections.push({ path, doc: child.description ?? '' });
      walk(child, path);
      continue;
    }
    const type: FieldType = child.enum ? 'enum' : (child.type as FieldType);
    const field: RecipeField = { path, section: prefix, type, doc: child.description ?? '', default: child.default as RecipeField['default'] };
    // zod writes ±MAX_SAFE_INTEGER for plain integers; those are not real bounds worth showing.
    if (child.minimum !== undefined && Math.abs(child.minimum) < Number.MAX_SAFE_INTEGER) field.min = child.minimum;
    if (child.maximum !== undefined && Math.abs(child.maximum) < Number.MAX_SAFE_INTEGER) field.max = child.maximum;
    if (child.exclusiveMinimum !== undefined) field.exclusiveMin = child.exclusiveMinimum;
    if (child.enum) field.options = child.enum;
    fields.push(field);
  }
}
walk(RECIPE_JSON_SCHEMA as JsonSchemaNode, '');

/** Every recipe field, in schema order. */
export const RECIPE_FIELDS: readonly RecipeField[] = fields;
/** Every section (nested object), in schema order. */
export const RECIPE_SECTIONS: readonly RecipeSection[] = sections;

const byPath = new Map(fields.map((f) => [f.path, f]));

export function recipeField(path: string): RecipeField | undefined {
  return byPath.get(path);
}

/** "integer in [1, 64]", "number > 0 and ≤ 1", "one of ppo | grpo | dr-grpo | rloo", "true | false". */
export function describeRange(field: RecipeField): string {
  if (field.type === 'enum') return `one of ${field.options?.join(' | ')}`;
  if (field.type === 'boolean') return 'true | false';
  if (field.type === 'string') return 'text';
  const kind = field.type === 'integer' ? 'an integer' : 'a number';
  if (field.exclusiveMin !== undefined) return `${kind} > ${field.exclusiveMin}${field.max !== undefined ? ` and ≤ ${field.max}` : ''}`;
  if (field.min !== undefined && field.max !== undefined) return `${kind} in [${field.min}, ${field.max}]`;
  if (field.min !== undefined) return `${kind} ≥ ${field.min}`;
  return kind;
}

/** A field value as the table and help show it: small numbers in exponent form (1e-4, not 0.0001). */
export function formatFieldValue(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) || Math.abs(value) >= 1e-3 ? String(value) : value.toExponential();
  return String(value);
}

/** Help text: one line per field, "path  default  doc", aligned; a field only some methods read ends "[read by ppo]". */
export function recipeFieldsHelp(): string {
  const width = Math.max(...fields.map((f) => f.path.length)) + 2;
  const defWidth = Math.max(...fields.map((f) => formatFieldValue(f.default).length)) + 2;
  const readers = (path: string) => {
    const methods = methodsReading(path);
    return methods ? ` [read by ${methods.join(', ')}]` : '';
  };
  return fields.map((f) => `  ${f.path.padEnd(width)}${formatFieldValue(f.default).padEnd(defWidth)}${f.doc}${readers(f.path)}`).join('\n');
}
