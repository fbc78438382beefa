// Reads the labelled-completions file a recipe trains from instead of rollouts (KTO's kto.file,
// core/src/train/labelled-examples.ts parses it), before anything is written: a missing,
// oversized or non-UTF-8 file is one sentence naming it, as a recipe file's problems are.

import { echo, type LabelledExample, labelledFileOf, parseLabelledFile, type Recipe, RecipeError } from '@horizon/core';
import { FileRefused, readCappedFile } from './read-file.ts';

/** A labelled file is a few thousand short rows; far past this it is not one. */
export const MAX_LABELLED_FILE_BYTES = 64 * 1024 * 1024;

/** The recipe's labelled rows, or undefined when it trains on rollouts. */
export async function loadLabelledExamples(recipe: Recipe): Promise<LabelledExample[] | undefined> {
  const path = labelledFileOf(recipe);
  if (path === undefined) return undefined;
  const name = echo(path);
  let bytes: Uint8Array;
  try {
    ({ bytes } = await readCappedFile(path, { maxBytes: MAX_LABELLED_FILE_BYTES }));
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    if (error.code === 'ENOENT') throw new RecipeError(`kto.file ${name} does not exist.`);
    if (error.code === 'EISDIR') throw new RecipeError(`kto.file ${name} is a directory; give a .jsonl file.`);
    if (error.code === 'TOO_LARGE') throw new RecipeError(`kto.file ${name} holds ${error.size} bytes, more than ${MAX_LABELLED_FILE_BYTES} allowed.`);
    if (error.code === 'CHANGED') throw new RecipeError(`kto.file ${name} changed while it was read; try again.`);
    throw new RecipeError(`kto.file ${name} is not a regular file (a pipe, a device or a socket); give a .jsonl file.`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RecipeError(`kto.file ${name} is not UTF-8 text; give a .jsonl file.`);
  }
  return parseLabelledFile(path, text, recipe);
}
