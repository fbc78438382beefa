import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../errors.ts';
import { modelConfigs } from './checks.ts';
import { describeRange, RECIPE_FIELDS, RECIPE_JSON_SCHEMA, RECIPE_SECTIONS, recipeField, recipeFieldsHelp } from './fields.ts';
import { PRESET_NAMES, PRESETS } from './presets.ts';
import { parseSetOption, RecipeError, resolveRecipe, validateRecipe } from './resolve.ts';
import { RecipeSchema } from './schema.ts';
import { formatRecipeTable, recipeDifferences, recipeValue } from './table.ts';

/** The error a call throws (failing the test if it throws none or a foreign one). */
function recipeError(f: () => unknown): RecipeError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(RecipeError);
    expect(isInputError(error)).toBe(true);
    return error as RecipeError;
  }
  throw new Error('expected a RecipeError, got none');
}

describe('recipe schema and presets', () => {
  it('every field has a doc, a default and a type', () => {
    expect(RECIPE_FIELDS.length).toBeGreaterThan(45);
    for (const f of RECIPE_FIELDS) {
      expect(f.doc.length, f.path).toBeGreaterThan(5);
      expect(f.default, f.path).not.toBeUndefined();
      expect(['integer', 'number', 'boolean', 'string', 'enum']).toContain(f.type);
    }
    for (const s of RECIPE_SECTIONS) expect(s.doc.length, s.path).toBeGreaterThan(5);
    expect(recipeField('rl.algorithm')).toMatchObject({
      type: 'enum',
      options: ['ppo', 'grpo', 'dr-grpo', 'rloo', 'kto', 'sao', 'distill', 'genac', 'opid'],
      default: 'ppo',
      section: 'rl',
    });
    expect(recipeField('rl.policyLr')).toMatchObject({ type: 'number', exclusiveMin: 0, max: 1 });
    expect(describeRange(recipeField('model.policy.layers')!)).toBe('an integer in [1, 64]');
    expect(describeRange(recipeField('rl.policyLr')!)).toBe('a number > 0 and ≤ 1');
    expect((RECIPE_JSON_SCHEMA as { additionalProperties: boolean }).additionalProperties).toBe(false);
  });

  it('the schema defaults are the add-ppo preset, the default is add-ppo-fast, and every preset resolves', () => {
    const defaults = validateRecipe({});
    expect(resolveRecipe({ preset: 'add-ppo' }).recipe).toEqual(defaults);
    // The default recipe is add-ppo with a quarter of its update work, and nothing else changed.
    const fast = { ...defaults, name: 'add-ppo-fast', rl: { ...defaults.rl, epochs: 1, policyLr: 5e-4, iterations: 160 } };
    expect(resolveRecipe().recipe).toEqual(fast);
    for (const f of RECIPE_FIELDS) expect(recipeValue(defaults, f.path), f.path).toEqual(f.default);
    for (const name of PRESET_NAMES) {
      const { recipe } = resolveRecipe({ preset: name });
      expect(recipe.name).toBe(name);
    }
    expect(resolveRecipe({ preset: 'add-grpo' }).recipe.rl).toMatchObject({ algorithm: 'grpo', groupSize: 4, klPlacement: 'loss' });
    expect(resolveRecipe({ preset: 'add-rloo' }).recipe.rl.algorithm).toBe('rloo');
  });

  it('tiny is a fraction of the default run (CI-sized: under a minute on two CPU cores)', () => {
    const tiny = resolveRecipe({ preset: 'tiny' }).recipe;
    const full = resolveRecipe({}).recipe;
    const rollouts = (r: typeof tiny) => r.rl.iterations * r.rl.promptsPerIteration * r.rl.groupSize;
    expect(rollouts(tiny)).toBeLessThanOrEqual(rollouts(full) / 5);
    expect(tiny.sft.steps).toBeLessThanOrEqual(full.sft.steps / 2);
    expect(tiny.model.contextLength).toBeLessThanOrEqual(full.model.contextLength);
  });

  it('presets only name real fields', () => {
    for (const [name, preset] of Object.entries(PRESETS)) expect(() => RecipeSchema.parse(preset.recipe), name).not.toThrow();
  });
});

describe('resolving a recipe', () => {
  it('layers defaults ← preset ← file ← --set and records each source', () => {
    const file = { name: 'mine.json', text: JSON.stringify({ extends: 'tiny', seed: 7, rl: { epochs: 3 } }) };
    const { recipe, sources } = resolveRecipe({ file, sets: ['rl.epochs=5', 'rl.whiten=false', 'rl.algorithm=rloo', 'rl.groupSize=2', 'name=my-run'] });
    expect(recipe).toMatchObject({ name: 'my-run', seed: 7, rl: { epochs: 5, whiten: false, algorithm: 'rloo', iterations: 15 } });
    expect(sources).toMatchObject({ seed: 'file mine.json', 'rl.epochs': '--set', 'rl.iterations': 'preset tiny', 'rl.gamma': 'default' });
    expect(resolveRecipe({ file: { name: 'f.json', text: '{}' } }).recipe).toEqual(resolveRecipe().recipe);
  });

  it('parses --set values by the field type', () => {
    expect(parseSetOption('rl.policyLr=3e-5')).toEqual({ path: 'rl.policyLr', value: 3e-5 });
    expect(parseSetOption(' seed = 12 ')).toEqual({ path: 'seed', value: 12 });
    expect(parseSetOption('rl.whiten=true')).toEqual({ path: 'rl.whiten', value: true });
    expect(parseSetOption('name=a=b')).toEqual({ path: 'name', value: 'a=b' });
  });

  it('a misspelt --set path names the closest field', () => {
    expect(recipeError(() => resolveRecipe({ sets: ['rl.clipLo=0.1'] })).message).toBe('--set rl.clipLo: no such recipe field; did you mean "rl.clipLow"?');
    expect(recipeError(() => resolveRecipe({ sets: ['ppo.clipLow=0.1'] })).message).toContain('did you mean "rl.clipLow"?');
    expect(recipeError(() => resolveRecipe({ sets: ['zzzzzz=1'] })).message).toBe('--set zzzzzz: no such recipe field (`horizon train --help` lists them).');
  });

  it('bad --set values are one sentence each', () => {
    expect(recipeError(() => resolveRecipe({ sets: ['rl.epochs'] })).message).toBe('--set "rl.epochs" must look like key=value, e.g. --set rl.clipLow=0.1.');
    expect(recipeError(() => resolveRecipe({ sets: ['rl=1'] })).message).toBe('--set rl: "rl" is a section; set one of its fields, e.g. --set rl.algorithm=….');
    for (const bad of ['NaN', 'Infinity', '', 'abc', '1,5'])
      expect(recipeError(() => resolveRecipe({ sets: [`rl.policyLr=${bad}`] })).message).toBe(`--set rl.policyLr: must be a number > 0 and ≤ 1, got "${bad}".`);
    expect(recipeError(() => resolveRecipe({ sets: ['rl.whiten=1'] })).message).toBe('--set rl.whiten: must be true or false, got "1".');
    expect(recipeError(() => resolveRecipe({ sets: ['rl.epochs=1.5'] })).message).toBe('rl.epochs (from --set) must be an integer in [1, 1000], got 1.5.');
    expect(recipeError(() => resolveRecipe({ sets: ['rl.policyLr=1e9'] })).message).toBe(
      'rl.policyLr (from --set) must be a number > 0 and ≤ 1, got 1000000000.',
    );
    expect(recipeError(() => resolveRecipe({ sets: ['rl.algorithm=grop'] })).message).toBe(
      'rl.algorithm (from --set) must be one of ppo | grpo | dr-grpo | rloo | kto | sao | distill | genac | opid, got "grop"; did you mean "grpo"?',
    );
    expect(recipeError(() => resolveRecipe({ sets: ['name=My Run'] })).message).toMatch(/^name \(from --set\) must be 1–64 lowercase letters/);
  });

  it('reports every issue of a file at once, each with its path and source', () => {
    const text = JSON.stringify({ rl: { clipLo: 0.1, epochs: 0 }, model: { policy: { width: 'wide' } }, sedd: 3 });
    const err = recipeError(() => resolveRecipe({ file: { name: 'bad.json', text } }));
    expect(err.issues.map((i) => i.path).sort()).toEqual(['model.policy.width', 'rl.clipLo', 'rl.epochs', 'sedd']);
    expect(err.message.split('\n')).toHaveLength(4);
    expect(err.message).toContain('rl.clipLo (from file bad.json) is not a recipe field in section rl; did you mean "rl.clipLow"?');
    expect(err.message).toContain('sedd (from file bad.json) is not a recipe field at the top level; did you mean "seed"?');
    expect(err.message).toContain('model.policy.width (from file bad.json) must be an integer in [8, 4096], got "wide".');
  });

  it('rejects a file that is not a JSON object, a bad "extends", a section given a value', () => {
    expect(recipeError(() => resolveRecipe({ file: { name: 'a.json', text: '{ nope' } })).message).toMatch(/^recipe file a.json is not valid JSON \(/);
    expect(recipeError(() => resolveRecipe({ file: { name: 'a.json', text: '[1]' } })).message).toBe('recipe file a.json must hold a JSON object, got [1].');
    expect(recipeError(() => resolveRecipe({ file: { name: 'a.json', text: '{"extends":"tinny"}' } })).message).toBe(
      'recipe file a.json: "extends" must name a preset (add-ppo, add-ppo-fast, add-grpo, add-dr-grpo, add-rloo, add-kto, add-sao, add-vc-ppo, tiny, mix-add-expert, mix-sub-expert, add-distill, mix-distill, add-genac, hidden-ppo, hidden-hack-ppo, stream-ppo, stream-grpo, ui-ppo, hidden-opid), got "tinny"; did you mean "tiny"?',
    );
    expect(recipeError(() => resolveRecipe({ file: { name: 'a.json', text: '{"rl": 3}' } })).message).toBe(
      'rl (from file a.json) is a section and must be an object of its fields, got 3.',
    );
  });

  it('an unknown recipe suggests the closest preset', () => {
    expect(recipeError(() => resolveRecipe({ preset: 'add-ppp' })).message).toBe(
      'unknown recipe "add-ppp" (presets: add-ppo, add-ppo-fast, add-grpo, add-dr-grpo, add-rloo, add-kto, add-sao, add-vc-ppo, tiny, mix-add-expert, mix-sub-expert, add-distill, mix-distill, add-genac, hidden-ppo, hidden-hack-ppo, stream-ppo, stream-grpo, ui-ppo, hidden-opid, or a path to a .json recipe file); did you mean "add-ppo"?',
    );
    expect(recipeError(() => resolveRecipe({ preset: 'qqqqqqqq' })).message).toMatch(/recipe file\)\.$/);
  });

  it('cross-field rules name both fields', () => {
    const message = (sets: string[]) => recipeError(() => resolveRecipe({ sets })).message;
    expect(message(['model.policy.width=66'])).toBe('model.policy.width (from --set) must be a multiple of model.policy.heads (4), got 66.');
    const wide = resolveRecipe({ sets: ['model.policy.width=128'] }).recipe;
    expect(modelConfigs(wide, 13)).toEqual({
      policy: { vocabSize: 13, contextLength: 32, layers: 2, heads: 4, width: 128, head: 'lm' },
      critic: { vocabSize: 13, contextLength: 32, layers: 2, heads: 4, width: 128, head: 'value' },
    });
    expect(message(['model.critic.layers=3'])).toBe(
      'model.critic.layers (from --set) must be 0 or equal model.policy.layers (2) when model.critic.init is "policy", got 3.',
    );
    expect(message(['model.critic.init=fresh', 'model.critic.width=30'])).toBe(
      'model.critic.width (from --set) must be a multiple of model.critic.heads (4), got 30.',
    );
    expect(() => resolveRecipe({ sets: ['model.critic.layers=3', 'model.critic.init=fresh'] })).not.toThrow();
    expect(() => resolveRecipe({ sets: ['model.critic.layers=3', 'rl.algorithm=grpo', 'rl.groupSize=2'] })).not.toThrow();
    expect(message(['rl.algorithm=grpo'])).toBe('rl.groupSize must be at least 2 for grpo (its baseline compares rollouts of one prompt), got 1.');
    expect(message(['rl.minibatches=5'])).toBe(
      'rl.minibatches (from --set) must divide the 128 rollouts per iteration (rl.promptsPerIteration × rl.groupSize), got 5.',
    );
    expect(message(['rl.dualClip=0.5'])).toBe('rl.dualClip (from --set) must be 0 (off) or greater than 1, got 0.5.');
    // An interval longer than the run means "only at the end": changing rl.iterations alone must just work.
    expect(() => resolveRecipe({ sets: ['rl.iterations=3'] })).not.toThrow();
    expect(message(['task.addition.oodMinDigits=2'])).toContain('task.addition.oodMinDigits (from --set) must exceed task.addition.maxDigits (2)');
    expect(message(['model.contextLength=12'])).toBe(
      'model.contextLength (from --set) must be at least 13 (longest OOD prompt 8 + answer and <eos> 5), got 12.',
    );
    expect(message(['rl.maxNewTokens=4'])).toBe('rl.maxNewTokens (from --set) must be at least 5 so the longest (OOD) answer and <eos> fit, got 4.');
    expect(message(['task.addition.maxDigits=1', 'eval.heldOutSize=51'])).toContain('eval.heldOutSize (from --set) must be at most half of the 100 problems');
  });

  it('keys like __proto__ are rejected as unknown and pollute nothing', () => {
    const text = '{"__proto__": {"polluted": 1}, "rl": {"constructor": {"prototype": {"polluted": 1}}}}';
    const err = recipeError(() => resolveRecipe({ file: { name: 'evil.json', text } }));
    expect(err.issues.map((i) => i.path).sort()).toEqual(['__proto__', 'rl.constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(resolveRecipe().recipe)).toBe(Object.prototype);
  });
});

describe('recipe validation properties', () => {
  const value = (f: (typeof RECIPE_FIELDS)[number]) => {
    if (f.type === 'enum') return fc.constantFrom(...(f.options ?? []));
    if (f.type === 'boolean') return fc.boolean();
    if (f.type === 'string') return fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
    const lo = f.exclusiveMin ?? f.min ?? 0;
    const hi = Math.min(f.max ?? 1e6, lo + 1e4);
    return f.type === 'integer' ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }) : fc.double({ min: lo, max: hi, noNaN: true });
  };
  const someFields = fc
    .subarray([...RECIPE_FIELDS], { maxLength: 6 })
    .chain((fields) => fc.tuple(...fields.map((f) => value(f).map((v) => [f.path, v] as const))));

  it('any JSON value validates or throws a RecipeError — never anything else (C7)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        try {
          validateRecipe(input);
        } catch (error) {
          if (!(error instanceof RecipeError)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('in-range field values either validate and round-trip through JSON, or fail a named cross-field rule (C6)', () => {
    fc.assert(
      fc.property(someFields, (pairs) => {
        const sets = pairs.map(([path, v]) => `${path}=${v}`);
        let resolved: ReturnType<typeof resolveRecipe>;
        try {
          resolved = resolveRecipe({ sets });
        } catch (error) {
          if (!(error instanceof RecipeError)) throw error;
          expect(error.issues.length).toBeGreaterThan(0);
          return;
        }
        const again = validateRecipe(JSON.parse(JSON.stringify(resolved.recipe)));
        expect(again).toEqual(resolved.recipe);
        expect(JSON.stringify(again)).toBe(JSON.stringify(resolved.recipe));
      }),
      { numRuns: 200 },
    );
  });
});

describe('recipe table and differences', () => {
  it('prints one aligned row per field with its source', () => {
    const { recipe, sources } = resolveRecipe({ preset: 'tiny', sets: ['rl.policyLr=5e-5'] });
    const lines = formatRecipeTable(recipe, { sources }).split('\n');
    expect(lines[0]).toBe('recipe tiny');
    expect(lines[1]).toMatch(/^field\s+value\s+source$/);
    expect(lines).toHaveLength(RECIPE_FIELDS.length + 2);
    const valueColumn = lines[1].indexOf('value');
    for (const line of lines.slice(2)) expect(line[valueColumn - 1]).toBe(' ');
    expect(lines).toContain(lines.find((l) => l.startsWith('rl.policyLr '))!);
    expect(lines.find((l) => l.startsWith('rl.policyLr '))).toMatch(/^rl\.policyLr\s+5e-5\s+--set$/);
    expect(lines.find((l) => l.startsWith('optim.eps '))).toMatch(/\s1e-8\s/);
    expect(formatRecipeTable(recipe, { docs: true })).toContain('discount γ');
    expect(recipeFieldsHelp()).toMatch(/ {2}rl\.clipLow\s+0\.2\s+PPO ratio clip below/);
  });

  it('lists differing fields in schema order', () => {
    const a = resolveRecipe({ preset: 'add-ppo' }).recipe;
    const b = resolveRecipe({ preset: 'add-ppo', sets: ['rl.epochs=3', 'seed=9'] }).recipe;
    expect(recipeDifferences(a, b)).toEqual([
      { path: 'seed', a: 1, b: 9 },
      { path: 'rl.epochs', a: 4, b: 3 },
    ]);
    expect(recipeDifferences(a, a)).toEqual([]);
  });
});
