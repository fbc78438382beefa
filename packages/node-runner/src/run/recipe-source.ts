// `--recipe NAME|FILE` and `--set key=value`: a preset name, or a path to a JSON recipe file,
// resolved with core's resolveRecipe. An unknown name that is not a file suggests the closest preset.

import { totalmem } from 'node:os';
import {
  checkRecipeFitsDevice,
  echo,
  isPresetName,
  type Recipe,
  RecipeError,
  type ResolvedRecipe,
  recipeVocabSize,
  resolveRecipe,
  type TeacherWeights,
  unknownRecipe,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { FileRefused, readCappedFile } from './read-file.ts';

/** A recipe is a few hundred bytes; anything past this is not one (and would only be echoed back). */
export const MAX_RECIPE_FILE_BYTES = 1024 * 1024;

const looksLikePath = (s: string) => s.endsWith('.json') || s.includes('/') || s.includes('\\');

export async function loadRecipe(options: { recipe?: string; sets?: readonly string[] }): Promise<ResolvedRecipe> {
  const { recipe, sets = [] } = options;
  if (recipe === undefined || isPresetName(recipe)) return resolveRecipe({ preset: recipe, sets });
  let bytes: Uint8Array;
  try {
    ({ bytes } = await readCappedFile(recipe, { maxBytes: MAX_RECIPE_FILE_BYTES }));
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    const name = echo(recipe);
    if (error.code === 'ENOENT' && !looksLikePath(recipe)) unknownRecipe(recipe);
    if (error.code === 'ENOENT') throw new RecipeError(`recipe file ${name} does not exist.`);
    if (error.code === 'EISDIR') throw new RecipeError(`recipe file ${name} is a directory; give a .json file or a preset name.`);
    if (error.code === 'TOO_LARGE')
      throw new RecipeError(
        `recipe file ${name} holds ${error.size} bytes, more than a recipe needs (at most ${MAX_RECIPE_FILE_BYTES}); give a .json recipe file.`,
      );
    if (error.code === 'CHANGED') throw new RecipeError(`recipe file ${name} changed while it was read; try again.`);
    throw new RecipeError(`recipe file ${name} is not a regular file (a pipe, a device or a socket); give a .json file or a preset name.`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RecipeError(`recipe file ${echo(recipe)} is not UTF-8 text; give a .json recipe file.`);
  }
  return resolveRecipe({ file: { name: echo(recipe), text }, sets });
}

/** Half the machine's memory: a run should leave room for the rest of it (and the OS page cache). */
export const HOST_MEMORY_SHARE = 0.5;

/**
 * Refuses (RecipeError, exit 2) a recipe this device or these kernels cannot run, before training
 * starts; distillation's teachers, once loaded, are sized as they are.
 */
export function checkRecipeFits(recipe: Recipe, gpu: Gpu, teachers?: readonly TeacherWeights[]): void {
  checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), gpu.device.limits, {
    hostMemoryBytes: Math.floor(totalmem() * HOST_MEMORY_SHARE),
    deviceInHostMemory: gpu.report.isSoftware,
    ...(teachers ? { teachers: teachers.map((t) => t.config) } : {}),
  });
}
