// The Node front end's run logs: metrics.jsonl through the core MetricsLogger interface, and
// samples.jsonl. Both resume to exactly the records a checkpoint had seen, so a resumed run's log
// continues without duplicated or missing steps (reference/reliability.md §3.3, T12).

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
import { JsonlFile } from './jsonl-file.ts';

export class FileMetricsLogger implements MetricsLogger {
  private constructor(private readonly file: JsonlFile) {}

  /** Starts metrics.jsonl with the resolved recipe as its first line; refuses an existing file. */
  static async create(path: string, recipe: Recipe): Promise<FileMetricsLogger> {
    return new FileMetricsLogger(await JsonlFile.create(path, [formatHeaderLine(recipe)]));
  }

  /**
   * Continues metrics.jsonl after its first `records` records (the count the checkpoint stored),
   * dropping anything logged after the checkpoint; refuses a log written for a different recipe.
   */
  static async resume(path: string, recipe: Recipe, records: number): Promise<FileMetricsLogger> {
    const { file, kept } = await JsonlFile.resume(path, 1 + records);
    try {
      const log = parseMetricsLog(kept, path);
      let saved: Recipe;
      try {
        saved = validateRecipe(log.header.recipe);
      } catch (error) {
        if (error instanceof RecipeError)
          throw new InputError('run', `the recipe in ${path} is not valid for this version of Horizon (${error.message.split('\n')[0]})`);
        throw error;
      }
      checkResumeRecipe(saved, recipe, path);
    } catch (error) {
      await file.close();
      throw error;
    }
    return new FileMetricsLogger(file);
  }

  /** Records written so far, header excluded: store it in the checkpoint. */
  get recordCount(): number {
    return this.file.lineCount - 1;
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

  /** Continues samples.jsonl after its first `records` lines. */
  static async resume(path: string, records: number): Promise<SamplesFile> {
    return new SamplesFile((await JsonlFile.resume(path, records)).file);
  }

  get recordCount(): number {
    return this.file.lineCount;
  }

  async append(records: readonly SampleRecord[]): Promise<void> {
    await this.file.append(records.map(formatSampleLine));
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
