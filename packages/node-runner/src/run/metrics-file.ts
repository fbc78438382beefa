// The Node front end's run logs: metrics.jsonl through the core MetricsLogger interface, and
// samples.jsonl. Both resume to exactly the position a checkpoint recorded (bytes and lines), so a
// resumed run's log continues without duplicated or missing steps. Resuming is two calls: inspect
// (reads, checks the header's recipe and that the kept rows end at the checkpoint's global step;
// writes nothing) and resume (cuts the file and opens it), so every refusal comes before any write.

import { readFile } from 'node:fs/promises';
import {
  checkResumeRecipe,
  formatHeaderLine,
  formatMetricsLine,
  formatSampleLine,
  InputError,
  type MetricsLogger,
  type MetricsRecord,
  parseMetricsLog,
  type Recipe,
  RecipeError,
  type SampleRecord,
  validateRecipe,
} from '@horizon/core';
import { JsonlFile, type LogPosition, type ResumePlan } from './jsonl-file.ts';

/** The recipe in metrics.jsonl's header (a run stopped before its first checkpoint has no other), read without writing. */
export async function savedRecipe(path: string): Promise<Recipe> {
  const text = await readFile(path, 'utf8');
  const end = text.indexOf('\n');
  const log = parseMetricsLog(end < 0 ? '' : text.slice(0, end + 1), path);
  return validSavedRecipe(log.header.recipe, path);
}

function validSavedRecipe(recipe: Record<string, unknown>, path: string): Recipe {
  try {
    return validateRecipe(recipe);
  } catch (error) {
    if (error instanceof RecipeError)
      throw new InputError('run', `the recipe in ${path} is not valid for this version of Horizon (${error.message.split('\n')[0]})`);
    throw error;
  }
}

export class FileMetricsLogger implements MetricsLogger {
  private constructor(private readonly file: JsonlFile) {}

  /** Starts metrics.jsonl with the resolved recipe as its first line; refuses an existing file. */
  static async create(path: string, recipe: Recipe): Promise<FileMetricsLogger> {
    return new FileMetricsLogger(await JsonlFile.create(path, [formatHeaderLine(recipe)]));
  }

  /**
   * Checks, without writing, that metrics.jsonl can continue after `records` records at byte
   * `bytes` (what the checkpoint stored): the header's recipe matches `recipe` and, when given,
   * the last kept row is at `globalStep` (a log written by another process would not be).
   */
  static async inspect(path: string, recipe: Recipe, at: { records: number; bytes?: number; globalStep?: number }): Promise<ResumePlan> {
    const plan = await JsonlFile.inspect(path, { lines: 1 + at.records, ...(at.bytes !== undefined ? { bytes: at.bytes } : {}) });
    const log = parseMetricsLog(plan.kept, path);
    checkResumeRecipe(validSavedRecipe(log.header.recipe, path), recipe, path);
    if (at.globalStep !== undefined) {
      const last = log.records.at(-1)?.global_step ?? 0;
      if (last !== at.globalStep)
        throw new InputError(
          'run',
          `${path} does not match the checkpoint: its row ${at.records} is at global step ${last}, the checkpoint at ${at.globalStep}; restore the file or start a new run.`,
        );
    }
    return plan;
  }

  /** Continues metrics.jsonl at an inspected position, dropping anything logged after it. */
  static async resume(plan: ResumePlan): Promise<FileMetricsLogger> {
    return new FileMetricsLogger(await JsonlFile.resume(plan));
  }

  /** Records written so far, header excluded: store it in the checkpoint. */
  get recordCount(): number {
    return this.file.lineCount - 1;
  }

  /** Bytes written so far, header included: store it in the checkpoint. */
  get byteCount(): number {
    return this.file.byteCount;
  }

  async log(record: MetricsRecord): Promise<void> {
    await this.file.append([formatMetricsLine(record)]);
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

export class SamplesFile {
  private constructor(private readonly file: JsonlFile) {}

  static async create(path: string): Promise<SamplesFile> {
    return new SamplesFile(await JsonlFile.create(path));
  }

  /** Checks, without writing, that samples.jsonl has the records (and bytes) the checkpoint saw. */
  static async inspect(path: string, at: LogPosition): Promise<ResumePlan> {
    return JsonlFile.inspect(path, at);
  }

  static async resume(plan: ResumePlan): Promise<SamplesFile> {
    return new SamplesFile(await JsonlFile.resume(plan));
  }

  get recordCount(): number {
    return this.file.lineCount;
  }

  get byteCount(): number {
    return this.file.byteCount;
  }

  async append(records: readonly SampleRecord[]): Promise<void> {
    await this.file.append(records.map(formatSampleLine));
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
