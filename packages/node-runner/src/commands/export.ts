// `horizon export`: take weights and trajectories out of Horizon (docs/export.md).
//   --checkpoint DIR --model policy --format nanogpt|hf --out DIR   a model as nanoGPT's or transformers' GPT-2 reads it
//   --run DIR --dataset trl-prompt-completion|trl-messages|kto|verl --out FILE.jsonl [--phase rl|eval|sft|all]
// Every check runs before anything is written: a path that is not a committed checkpoint, an
// unknown model, format or dataset, or an --out that holds something is one sentence and exit 2.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { echo, InputError, PHASES, type SampleRecord } from '@horizon/core';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { DATASETS, type DatasetKind, datasetRow, loggedEveryRollout, recordsOfPhase, subsampleNote } from '../export/datasets.ts';
import { hfGpt2Files } from '../export/hf-gpt2.ts';
import { openExportSource } from '../export/model-source.ts';
import { nanoGptFiles } from '../export/nanogpt.ts';
import { checkNewFile, checkOutFolder, writeFolder, writeNewFile } from '../export/write-output.ts';
import { readSamplesLog } from '../run/samples-log.ts';

const FORMATS = { nanogpt: nanoGptFiles, hf: hfGpt2Files } as const;
type FormatName = keyof typeof FORMATS;

const oneOf = (list: readonly string[]) => list.join(', ');

async function exportModel(flags: Record<string, unknown>, out: (line: string) => void): Promise<number> {
  const format = flags.format as string | undefined;
  if (format === undefined) throw new UsageError(`--format is required with --checkpoint (${oneOf(Object.keys(FORMATS))}).`);
  if (!Object.hasOwn(FORMATS, format)) throw new UsageError(`--format ${echo(format)} is not one of ${oneOf(Object.keys(FORMATS))}.`);
  const target = flags.out as string;
  checkOutFolder(target);
  const source = await openExportSource(flags.checkpoint as string, (flags.model as string | undefined) ?? 'policy');
  const files = FORMATS[format as FormatName](source);
  await writeFolder(target, files);
  out(`wrote the ${source.modelName} of ${source.where} (step ${source.step}) as ${format} to ${target}: ${[...files.keys()].join(', ')}`);
  return EXIT.ok;
}

/** The run's recipe from metrics.jsonl's first line (its header), or undefined when the run has none readable. */
function runRecipe(runDir: string): { task?: string; rolloutsPerIteration?: number } {
  let dir = runDir;
  try {
    if (!statSync(runDir).isDirectory()) dir = join(runDir, '..');
  } catch {
    return {};
  }
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, 'metrics.jsonl'), 'r');
    // The header holds one resolved recipe: kilobytes.
    const buffer = Buffer.alloc(1024 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const first = buffer.subarray(0, n).toString('utf8').split('\n')[0];
    const recipe = (JSON.parse(first) as { recipe?: { task?: { env?: unknown }; rl?: { promptsPerIteration?: unknown; groupSize?: unknown } } }).recipe;
    const env = recipe?.task?.env;
    const prompts = recipe?.rl?.promptsPerIteration;
    const group = recipe?.rl?.groupSize;
    return {
      ...(typeof env === 'string' ? { task: env } : {}),
      ...(typeof prompts === 'number' && typeof group === 'number' ? { rolloutsPerIteration: prompts * group } : {}),
    };
  } catch {
    return {};
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function exportDataset(flags: Record<string, unknown>, out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const kind = flags.dataset as string;
  if (!(DATASETS as readonly string[]).includes(kind)) throw new UsageError(`--dataset ${echo(kind)} is not one of ${oneOf(DATASETS)}.`);
  const phase = (flags.phase as string | undefined) ?? 'rl';
  if (phase !== 'all' && !(PHASES as readonly string[]).includes(phase))
    throw new UsageError(`--phase ${echo(phase)} is not one of ${oneOf([...PHASES, 'all'])}.`);
  const target = flags.out as string;
  checkNewFile(target);
  checkNewFile(`${target}.meta.json`);
  const runDir = flags.run as string;
  const { file, records: all } = await readSamplesLog(runDir);
  const records = recordsOfPhase(all, phase as SampleRecord['phase'] | 'all');
  if (records.length === 0) throw new InputError('run', `${echo(file)} holds no ${phase} rollouts to export.`);
  const recipe = runRecipe(runDir);
  const lines: string[] = [];
  for (const [index, record] of records.entries()) {
    const row = datasetRow(kind as DatasetKind, record, index, recipe.task ?? 'unknown');
    if (!row) throw new InputError('run', `${echo(file)} has a rollout without token pieces (written by an older Horizon), so its text cannot be exported.`);
    lines.push(JSON.stringify(row));
  }
  const note = subsampleNote(all, recipe.rolloutsPerIteration);
  const about = {
    format: `horizon.export.dataset/${kind}/1`,
    source: file,
    phase,
    rows: lines.length,
    subsample: note,
    nulls: 'per-token channels are null where token_roles is not "a" (prompt and observation tokens the policy did not sample)',
    nonfinite: 'NaN and ±Infinity are written as null, and each row lists where in its "nonfinite" field',
  };
  await writeNewFile(`${target}.meta.json`, `${JSON.stringify(about, null, 1)}\n`);
  await writeNewFile(target, lines.length > 0 ? `${lines.join('\n')}\n` : '');
  if (!loggedEveryRollout(all, recipe.rolloutsPerIteration)) err(`warning: ${note}`);
  out(`wrote ${lines.length} ${phase} rows as ${kind} to ${target} (about it: ${target}.meta.json)`);
  return EXIT.ok;
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a checkpoint as nanoGPT or Hugging Face GPT-2 weights, or a run as TRL/KTO/verl data',
  flags: {
    checkpoint: { type: 'string', description: 'a run directory (its newest checkpoint) or a checkpoints/step-N directory', valueName: 'dir' },
    model: { type: 'string', description: 'which model of the checkpoint (default policy)', valueName: 'name' },
    format: { type: 'string', description: 'nanogpt (model_args + safetensors + loader) or hf (GPT-2 folder)', valueName: 'name' },
    run: { type: 'string', description: 'a run directory (or its samples.jsonl) to export rollouts from', valueName: 'dir' },
    dataset: { type: 'string', description: `the rows to write: ${oneOf(DATASETS)}`, valueName: 'name' },
    phase: { type: 'string', description: 'which rollouts: rl (default), eval, sft or all', valueName: 'name' },
    out: { type: 'string', description: 'a new folder (model) or a new .jsonl file (dataset)', valueName: 'path' },
  },
  async run({ flags, out, err }) {
    if (flags.out === undefined) throw new UsageError('--out is required (a new folder for a model, a new .jsonl file for a dataset).');
    if (flags.checkpoint !== undefined && flags.run !== undefined) throw new UsageError('give --checkpoint (a model) or --run (a dataset), not both.');
    if (flags.checkpoint !== undefined) {
      if (flags.dataset !== undefined) throw new UsageError('--dataset goes with --run DIR; --checkpoint exports a model with --format.');
      return exportModel(flags, out);
    }
    if (flags.run !== undefined) {
      if (flags.dataset === undefined) throw new UsageError(`--dataset is required with --run (${oneOf(DATASETS)}).`);
      if (flags.format !== undefined || flags.model !== undefined)
        throw new UsageError('--format and --model go with --checkpoint DIR; --run exports a dataset.');
      return exportDataset(flags, out, err);
    }
    throw new UsageError('give --checkpoint DIR --format nanogpt|hf (a model) or --run DIR --dataset NAME (a dataset).');
  },
};
