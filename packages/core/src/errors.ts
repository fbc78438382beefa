// Errors caused by what a person supplied (a recipe, a --set, a checkpoint, a run directory), as
// opposed to bugs or device failures. Each message is one sentence naming the field or file and
// what to do (CONVENTIONS.md §11); front ends print the message alone and the CLI exits with 2.

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
