// `--recipe NAME|FILE` and `--set key=value`: a preset name, or a path to a JSON recipe file,
// resolved with core's resolveRecipe. An unknown name that is not a file suggests the closest preset.

import { readFile } from 'node:fs/promises';
import { isPresetName, RecipeError, type ResolvedRecipe, resolveRecipe, unknownRecipe } from '@horizon/core';

const looksLikePath = (s: string) => s.endsWith('.json') || s.includes('/') || s.includes('\\');

export async function loadRecipe(options: { recipe?: string; sets?: readonly string[] }): Promise<ResolvedRecipe> {
  const { recipe, sets = [] } = options;
  if (recipe === undefined || isPresetName(recipe)) return resolveRecipe({ preset: recipe, sets });
  let text: string;
  try {
    text = await readFile(recipe, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !looksLikePath(recipe)) unknownRecipe(recipe);
    if (code === 'ENOENT') throw new RecipeError(`recipe file ${recipe} does not exist.`);
    if (code === 'EISDIR') throw new RecipeError(`recipe file ${recipe} is a directory; give a .json file or a preset name.`);
    throw error;
  }
  return resolveRecipe({ file: { name: recipe, text }, sets });
}
