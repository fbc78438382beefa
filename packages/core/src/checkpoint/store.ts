// Where checkpoints live. A CheckpointStore moves whole checkpoints as named byte files and
// guarantees "committed means durable, uncommitted means invisible" (docs/reliability.md §1):
// Node implements it on the file system (node-runner/src/run/checkpoint-store.ts), the browser on
// IndexedDB. saveCheckpoint / loadCheckpoint add encoding, verification, retention and the resume
// check on top, the same for every store.

import type { Recipe } from '../recipe/schema.ts';
import { recipeDifferences } from '../recipe/table.ts';
import { type Checkpoint, CheckpointError, type CheckpointFileRead, decodeCheckpoint, encodeCheckpoint, memoryReader } from './checkpoint.ts';

export interface CheckpointStore {
  /** Where the store is, for messages (a directory, an IndexedDB database). */
  readonly location: string;
  /** Steps of committed checkpoints, ascending. Partial writes are never listed. */
  list(): Promise<number[]>;
  /**
   * Writes every file, then commits. Once this resolves the checkpoint survives a crash; if it
   * rejects, no committed checkpoint changed. Refuses a step that is already committed.
   */
  write(step: number, files: ReadonlyMap<string, Uint8Array>): Promise<void>;
  /**
   * One file of a committed checkpoint, never reading more than `maxBytes` (a larger file answers
   * with its size). Throws CheckpointError if the step is not committed or the file is missing or not
   * a regular file. A store may hash while it reads (`sha256`); otherwise the loader hashes.
   */
  readFile(step: number, file: string, maxBytes: number): Promise<CheckpointFileRead>;
  /** Uncommits, then deletes a checkpoint. */
  remove(step: number): Promise<void>;
  /** Names a file of a checkpoint for messages, e.g. "runs/x/checkpoints/step-20/policy.safetensors". */
  describe(step: number, file?: string): string;
}

/**
 * Fields that may differ between the saved and the resuming recipe: they do not change what any
 * iteration computes. `rl.iterations` lengthens or shortens a run (every random stream is keyed by
 * the iteration number, not by the total); evaluation uses its own greedy sampler and streams;
 * `log.allSamples` only chooses how many of an iteration's rollouts samples.jsonl gets.
 */
export const RESUME_SAFE_FIELDS: readonly string[] = ['checkpoint.interval', 'checkpoint.keepLast', 'rl.iterations', 'eval.interval', 'log.allSamples'];

/** Throws a CheckpointError naming the first field (in schema order) where the recipes differ. */
export function checkResumeRecipe(saved: Recipe, requested: Recipe, where: string): void {
  const diff = recipeDifferences(saved, requested).find((d) => !RESUME_SAFE_FIELDS.includes(d.path));
  if (!diff) return;
  const show = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));
  throw new CheckpointError(
    `cannot resume from ${where}: it was trained with ${diff.path} = ${show(diff.a)} but this run asks for ${show(diff.b)}; resume with the same recipe and --set options, or start a new run.`,
  );
}

/** Encodes, writes and commits a checkpoint, then deletes committed ones beyond `keepLast` (older first). */
export async function saveCheckpoint(store: CheckpointStore, ckpt: Checkpoint, options: { keepLast: number }): Promise<void> {
  if (!Number.isInteger(options.keepLast) || options.keepLast < 1) throw new RangeError(`keepLast must be a positive integer, got ${options.keepLast}`);
  await store.write(ckpt.step, await encodeCheckpoint(ckpt));
  // Deleting only after the commit: a crash here leaves one checkpoint too many, never one too few.
  const steps = await store.list();
  for (const step of steps.slice(0, Math.max(0, steps.length - options.keepLast))) if (step !== ckpt.step) await store.remove(step);
}

/**
 * Loads a committed checkpoint (the latest unless `step` is given), verifying every file. With
 * `recipe`, refuses one trained with a different recipe. Never falls back silently: a corrupt
 * checkpoint is an error that names the file and the previous committed step.
 */
export async function loadCheckpoint(store: CheckpointStore, options: { step?: number; recipe?: Recipe } = {}): Promise<Checkpoint> {
  const steps = await store.list();
  if (steps.length === 0)
    throw new CheckpointError(`no committed checkpoint in ${store.location}; start a new run, or point --resume at a run directory that has one.`);
  const step = options.step ?? (steps.at(-1) as number);
  if (!steps.includes(step))
    throw new CheckpointError(`there is no committed checkpoint for step ${step} in ${store.location} (committed: ${steps.join(', ')}).`);
  let ckpt: Checkpoint;
  try {
    ckpt = await decodeCheckpoint(
      (file, maxBytes) => store.readFile(step, file, maxBytes),
      (file) => store.describe(step, file),
    );
  } catch (error) {
    const previous = steps.filter((s) => s < step).at(-1);
    if (error instanceof CheckpointError && previous !== undefined)
      throw new CheckpointError(`${error.message.replace(/\.$/, '')} (the previous committed checkpoint is ${store.describe(previous)}).`, error.file);
    throw error;
  }
  if (ckpt.step !== step)
    throw new CheckpointError(`checkpoint ${store.describe(step)} says it is step ${ckpt.step}; it was moved or renamed, so it cannot be trusted.`);
  if (options.recipe) checkResumeRecipe(ckpt.recipe, options.recipe, store.describe(step));
  return ckpt;
}

/** An in-memory store: for tests, and the reference model of what every store must do. */
export class MemoryCheckpointStore implements CheckpointStore {
  readonly location = 'memory';
  private readonly committed = new Map<number, Map<string, Uint8Array>>();

  async list(): Promise<number[]> {
    return [...this.committed.keys()].sort((a, b) => a - b);
  }

  async write(step: number, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
    if (this.committed.has(step)) throw new CheckpointError(`checkpoint ${this.describe(step)} already exists; refusing to overwrite it.`);
    this.committed.set(step, new Map([...files].map(([k, v]) => [k, v.slice()])));
  }

  async readFile(step: number, file: string, maxBytes: number): Promise<CheckpointFileRead> {
    const files = this.committed.get(step);
    if (!files) throw new CheckpointError(`checkpoint ${this.describe(step)} is not committed.`);
    const got = await memoryReader(files, (f) => this.describe(step, f))(file, maxBytes);
    return 'bytes' in got ? { bytes: got.bytes.slice() } : got;
  }

  async remove(step: number): Promise<void> {
    this.committed.delete(step);
  }

  describe(step: number, file?: string): string {
    return `memory:step-${step}${file ? `/${file}` : ''}`;
  }

  /** Test hook: the stored bytes of a file, to corrupt them in place. */
  raw(step: number, file: string): Uint8Array | undefined {
    return this.committed.get(step)?.get(file);
  }
}
