// Errors caused by what a person supplied (a recipe, a --set, a checkpoint, a run directory), as
// opposed to bugs or device failures. Each message is one sentence naming the field or file and
// what to do (docs/conventions.md §11); front ends print the message alone and the CLI exits with 2.

export type InputErrorKind = 'recipe' | 'checkpoint' | 'safetensors' | 'run';

export class InputError extends Error {
  readonly kind: InputErrorKind;

  constructor(kind: InputErrorKind, message: string) {
    super(message);
    this.name = 'InputError';
    this.kind = kind;
  }
}

/** True for any InputError, also across duplicated module instances (bundles, workers). */
export function isInputError(error: unknown): error is InputError {
  return error instanceof InputError || (error instanceof Error && error.name === 'InputError' && typeof (error as InputError).kind === 'string');
}

/** Characters of a user's value an error message repeats; the rest is counted, not echoed (a 10 MB name once made a 10 MB line). */
export const ECHO_CHARS = 80;

/** `text` for an error message: as is when short, else its start and "…(N chars)". */
export function echo(text: string, max = ECHO_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…(${text.length} chars)`;
}

/** Any value for an error message: strings quoted, non-finite numbers named (JSON would say null), capped by `echo`. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return `"${echo(value)}"`;
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (not a finite number)`;
  if (typeof value !== 'object' || value === null) return String(value);
  if (jsonDepthExceeds(value, 32)) return Array.isArray(value) ? 'a deeply nested array' : 'a deeply nested object';
  return echo(JSON.stringify(value));
}

/** True if `value` nests arrays or objects more than `limit` deep; iterative, so any depth is safe to ask about. */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
