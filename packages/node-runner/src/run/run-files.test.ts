import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { formatMetricsLine, type InputError, isInputError, parseMetricsLog, RecipeError, resolveRecipe } from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { FileMetricsLogger, SamplesFile } from './metrics-file.ts';
import { TrainingProgress } from './progress.ts';
import { loadRecipe } from './recipe-source.ts';
import { createRunDir, openRunDir, runDirName } from './run-dir.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-run-'));
afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(root, { recursive: true, force: true });
});
const recipe = resolveRecipe({ preset: 'tiny' }).recipe;

async function inputError(p: Promise<unknown>): Promise<InputError> {
  try {
    await p;
  } catch (error) {
    expect(isInputError(error)).toBe(true);
    return error as InputError;
  }
  throw new Error('expected an InputError, got none');
}

describe('run directories', () => {
  it('are named <recipe>-<UTC time> and never reuse a non-empty directory', async () => {
    const now = new Date(Date.UTC(2025, 2, 14, 9, 26, 53));
    expect(runDirName('add-ppo', now)).toBe('add-ppo-20250314-092653');
    const a = await createRunDir({ recipeName: 'tiny', root, now });
    expect(a.dir).toBe(join(root, 'tiny-20250314-092653'));
    expect(await readdir(a.dir)).toEqual(['checkpoints']);
    expect(a.metrics).toBe(join(a.dir, 'metrics.jsonl'));
    const b = await createRunDir({ recipeName: 'tiny', root, now });
    expect(b.dir).toBe(join(root, 'tiny-20250314-092653-2'));
  });

  it('--out must be missing or empty; --resume needs a metrics log', async () => {
    const out = join(root, 'mine');
    await createRunDir({ recipeName: 'tiny', out });
    expect((await inputError(createRunDir({ recipeName: 'tiny', out }))).message).toBe(
      `run directory ${out} already exists and is not empty; choose another --out, or continue it with --resume ${out}.`,
    );
    expect((await inputError(openRunDir(out))).message).toBe(
      `${out} is not a Horizon run directory (it has no metrics.jsonl); give --resume the directory a previous \`horizon train\` created.`,
    );
  });
});

describe('metrics.jsonl and samples.jsonl on disk', () => {
  const resumeAt = async (path: string, r: typeof recipe, records: number) => FileMetricsLogger.resume(await FileMetricsLogger.inspect(path, r, { records }));
  const rec = (step: number) => ({ phase: 'rl' as const, step, time_s: step, metrics: { 'rollout/reward': step / 10 } });

  it('starts with the recipe, appends records, refuses to overwrite', async () => {
    const dir = join(root, 'log1');
    await mkdir(dir);
    const path = join(dir, 'metrics.jsonl');
    const logger = await FileMetricsLogger.create(path, recipe);
    await logger.log(rec(1));
    await logger.log(rec(2));
    expect(logger.recordCount).toBe(2);
    await logger.close();
    const log = parseMetricsLog(await readFile(path, 'utf8'));
    expect(log.header.recipe).toEqual(recipe);
    expect(log.records.map((r) => r.step)).toEqual([1, 2]);
    expect((await inputError(FileMetricsLogger.create(path, recipe))).message).toBe(`${path} already exists; refusing to overwrite a run log.`);
  });

  it('resume keeps exactly the records the checkpoint saw, dropping later ones and a torn tail', async () => {
    const dir = join(root, 'log2');
    await mkdir(dir);
    const path = join(dir, 'metrics.jsonl');
    const logger = await FileMetricsLogger.create(path, recipe);
    for (const s of [1, 2, 3, 4]) await logger.log(rec(s));
    await logger.close();
    await writeFile(path, `${await readFile(path, 'utf8')}{"kind":"metrics","ph`);
    const resumed = await resumeAt(path, recipe, 2);
    expect(resumed.recordCount).toBe(2);
    await resumed.log(rec(3));
    await resumed.close();
    const text = await readFile(path, 'utf8');
    expect(parseMetricsLog(text).records.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(text.endsWith(formatMetricsLine(rec(3)))).toBe(true);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('resume refuses a different recipe and a log shorter than the checkpoint says', async () => {
    const dir = join(root, 'log3');
    await mkdir(dir);
    const path = join(dir, 'metrics.jsonl');
    const logger = await FileMetricsLogger.create(path, recipe);
    await logger.log(rec(1));
    await logger.close();
    const before = await readFile(path, 'utf8');
    const other = resolveRecipe({ preset: 'tiny', sets: ['rl.gamma=0.99'] }).recipe;
    expect((await inputError(resumeAt(path, other, 1))).message).toBe(
      `cannot resume from ${path}: it was trained with rl.gamma = 1 but this run asks for 0.99; resume with the same recipe and --set options, or start a new run.`,
    );
    expect((await inputError(resumeAt(path, recipe, 5))).message).toBe(
      `${path} has 2 complete lines but the checkpoint was taken after 6, so it does not match the checkpoint; restore the file from a backup or start a new run.`,
    );
    expect(await readFile(path, 'utf8')).toBe(before);
    expect((await inputError(resumeAt(join(dir, 'nope.jsonl'), recipe, 0))).message).toMatch(/nope.jsonl is missing; the run directory is incomplete\.$/);
  });

  it('resume cuts at the byte position the checkpoint recorded and refuses a log that no longer matches it', async () => {
    const dir = join(root, 'log5');
    await mkdir(dir);
    const path = join(dir, 'metrics.jsonl');
    const logger = await FileMetricsLogger.create(path, recipe);
    for (const s of [1, 2]) await logger.log({ ...rec(s), global_step: s });
    const at = { records: logger.recordCount, bytes: logger.byteCount, globalStep: 2 };
    await logger.log({ ...rec(3), global_step: 3 });
    await logger.close();
    const full = await readFile(path, 'utf8');
    const plan = await FileMetricsLogger.inspect(path, recipe, at);
    expect(plan).toMatchObject({ lines: 3, bytes: at.bytes, cut: true });
    expect(await readFile(path, 'utf8')).toBe(full); // inspecting writes nothing
    // A second writer's duplicated row before the checkpoint's position: counting lines would keep the wrong ones.
    const lines = full.split('\n');
    await writeFile(path, [lines[0], lines[1], lines[1], ...lines.slice(2)].join('\n'));
    expect((await inputError(FileMetricsLogger.inspect(path, recipe, at))).message).toMatch(/does not match the checkpoint/);
    await writeFile(path, full);
    expect((await inputError(FileMetricsLogger.inspect(path, recipe, { ...at, globalStep: 7 }))).message).toMatch(
      /its row 2 is at global step 2, the checkpoint at 7/,
    );
    const resumed = await FileMetricsLogger.resume(plan);
    await resumed.log({ ...rec(3), global_step: 3 });
    await resumed.close();
    expect(await readFile(path, 'utf8')).toBe(full);
  });

  it('samples.jsonl appends one record per line and resumes by count', async () => {
    const dir = join(root, 'log4');
    await mkdir(dir);
    const path = join(dir, 'samples.jsonl');
    const sample = (step: number) => ({
      phase: 'rl' as const,
      step,
      rolloutId: 0,
      groupId: 0,
      seed: 1,
      prompt: '1+2=',
      turns: [],
      reward: 1,
      done: true,
      tokens: [1, 2],
      roles: 'pa',
    });
    const file = await SamplesFile.create(path);
    await file.append([sample(1), sample(1)]);
    await file.append([sample(2)]);
    await file.close();
    const resumed = await SamplesFile.resume(await SamplesFile.inspect(path, { lines: 2 }));
    await resumed.append([sample(3)]);
    await resumed.close();
    expect(
      (await readFile(path, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).step),
    ).toEqual([1, 1, 3]);
  });
});

describe('--recipe NAME|FILE', () => {
  it('a preset, a file with extends and --set, an unknown name, a missing file', async () => {
    expect((await loadRecipe({ recipe: 'tiny' })).recipe.name).toBe('tiny');
    expect((await loadRecipe({})).recipe.name).toBe('add-ppo-fast');
    const file = join(root, 'mine.json');
    await writeFile(file, JSON.stringify({ extends: 'add-grpo', name: 'mine', rl: { iterations: 7 } }));
    const r = await loadRecipe({ recipe: file, sets: ['seed=3'] });
    expect(r.recipe).toMatchObject({ name: 'mine', seed: 3, rl: { algorithm: 'grpo', iterations: 7 } });
    expect(r.sources['rl.iterations']).toBe(`file ${file}`);
    await expect(loadRecipe({ recipe: 'add-grop' })).rejects.toThrow(RecipeError);
    await expect(loadRecipe({ recipe: 'add-grop' })).rejects.toThrow(/^unknown recipe "add-grop" .*; did you mean "add-grpo"\?$/);
    await expect(loadRecipe({ recipe: join(root, 'missing.json') })).rejects.toThrow(`recipe file ${join(root, 'missing.json')} does not exist.`);
    await expect(loadRecipe({ recipe: root })).rejects.toThrow(/is a directory/);
  });
});

describe('progress bar', () => {
  it('shows iterations, ETA and the live reward and success, also when not on a terminal', async () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => {
      text += d.toString();
    });
    const bar = new TrainingProgress({ total: 4, label: 'ppo', stream, plainIntervalMs: 5 });
    for (let i = 1; i <= 4; i++) {
      await new Promise((r) => setTimeout(r, 15));
      bar.update(i, { reward: i / 8, success: i / 4 });
    }
    bar.stop();
    bar.stop();
    expect(text).toMatch(/ppo .* 4\/4 \| \S+ elapsed, ETA \S+ \| reward 0\.500 \| success 100\.0%/);
    expect(text).toMatch(/reward 0\.250 \| success 50\.0%/);
    expect(() => new TrainingProgress({ total: 0, label: 'x', stream })).toThrow(/positive integer/);
  });
});
