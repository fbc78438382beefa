// `horizon recipe`: resolve a recipe exactly as `horizon train` will (preset or file, then --set)
// and print it, so a recipe can be checked before a run; `--fields` lists every field with its
// default and doc (the same docs the web UI shows), `--json` writes a recipe file to start from.

import { DEFAULT_PRESET, formatRecipeTable, isInputError, PRESET_NAMES, PRESETS, recipeFieldsHelp } from '@horizon/core';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { loadRecipe } from '../run/recipe-source.ts';

export const recipe: Command = {
  name: 'recipe',
  summary: 'print a resolved training recipe (preset or file, with --set overrides), or every field with its doc',
  flags: {
    recipe: { type: 'string', description: `a preset (${PRESET_NAMES.join(', ')}) or a .json recipe file; default ${DEFAULT_PRESET}`, valueName: 'name|file' },
    set: { type: 'string', multiple: true, description: 'override one field, e.g. --set rl.clipLow=0.1 (repeatable)', valueName: 'key=value' },
    fields: { type: 'boolean', description: 'list every field with its default and doc, and the presets' },
    json: { type: 'boolean', description: 'print the resolved recipe as JSON (a recipe file)' },
  },
  async run({ flags, out }) {
    if (flags.fields) {
      out('fields (default, doc):');
      out(recipeFieldsHelp());
      out('');
      out('presets:');
      const width = Math.max(...PRESET_NAMES.map((name) => name.length)) + 2;
      for (const name of PRESET_NAMES) out(`  ${name.padEnd(width)}${PRESETS[name].doc}`);
      return EXIT.ok;
    }
    try {
      const { recipe: resolved, sources } = await loadRecipe({ recipe: flags.recipe as string | undefined, sets: (flags.set as string[] | undefined) ?? [] });
      out(flags.json ? JSON.stringify(resolved, null, 2) : formatRecipeTable(resolved, { sources }));
      return EXIT.ok;
    } catch (error) {
      if (isInputError(error)) throw new UsageError(error.message);
      throw error;
    }
  },
};
