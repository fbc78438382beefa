// Saved runs: write a whole run in one transaction (all or nothing: a quota failure leaves no half
// run behind), list, load and delete. Every failure is rethrown as a StorageError with a sentence
// for the banner.

import type { MetricsRecord } from '@horizon/core';
import type { ReplaySample, RunSummary, RunView } from '../engine/api.ts';
import { type CheckpointRecord, type Db, openHorizonDb, type RunRecord } from './db.ts';
import { StorageError, toStorageError } from './errors.ts';

const runRange = (id: string) => IDBKeyRange.bound([id, 0], [id, Number.MAX_SAFE_INTEGER]);

export class RunStore {
  private db: Promise<Db> | undefined;
  /** Set when the connection was closed for another tab's upgrade or by the browser; every later call fails with it. */
  private closedBecause: string | undefined;

  constructor(
    private readonly notify: (message: string) => void,
    private readonly name?: string,
  ) {}

  private open(): Promise<Db> {
    if (this.closedBecause) return Promise.reject(new StorageError('closed', this.closedBecause));
    this.db ??= openHorizonDb((message) => {
      this.closedBecause = message;
      this.notify(message);
    }, this.name).catch((error: unknown) => {
      this.db = undefined; // a later call may succeed (e.g. after the other tab closed)
      throw error;
    });
    return this.db;
  }

  private async guard<T>(doing: string, work: (db: Db) => Promise<T>): Promise<T> {
    const db = await this.open();
    try {
      return await work(db);
    } catch (error) {
      if (this.closedBecause) throw new StorageError('closed', this.closedBecause, { cause: error });
      throw toStorageError(error, doing);
    }
  }

  /** Saves a run with all its rows, atomically. */
  saveRun(summary: RunSummary, recipe: Record<string, unknown>, records: readonly MetricsRecord[], samples: readonly ReplaySample[]): Promise<void> {
    return this.appendRows(summary, recipe, { records, first: 0 }, { samples, first: 0 });
  }

  /**
   * Writes the run's summary and rows at sequence numbers `first`, `first + 1`, … atomically: a
   * live run appends each batch this way, so a reload finds every batch that committed.
   */
  async appendRows(
    summary: RunSummary,
    recipe: Record<string, unknown>,
    metricsRows: { records: readonly MetricsRecord[]; first: number },
    sampleRows: { samples: readonly ReplaySample[]; first: number },
  ): Promise<void> {
    await this.guard(`save run "${summary.name}"`, async (db) => {
      const tx = db.transaction(['runs', 'metrics', 'samples'], 'readwrite');
      const writes: Promise<unknown>[] = [tx.objectStore('runs').put({ ...summary, recipe } satisfies RunRecord)];
      const metrics = tx.objectStore('metrics');
      for (const [i, record] of metricsRows.records.entries()) writes.push(metrics.put({ runId: summary.id, seq: metricsRows.first + i, record }));
      const sampleStore = tx.objectStore('samples');
      for (const [i, sample] of sampleRows.samples.entries()) writes.push(sampleStore.put({ runId: summary.id, seq: sampleRows.first + i, sample }));
      // Every request promise is awaited with tx.done, so an abort surfaces once, as tx.done's error.
      const settled = await Promise.allSettled([...writes, tx.done]);
      const failed = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined;
      if (failed) throw tx.error ?? failed.reason;
    });
  }

  /** Saved runs, newest first. */
  async listRuns(): Promise<RunSummary[]> {
    return this.guard('list saved runs', async (db) => {
      const runs = await db.getAll('runs');
      return runs.map(({ recipe: _recipe, ...summary }) => summary).sort((a, b) => b.createdAt - a.createdAt);
    });
  }

  async loadRun(id: string): Promise<RunView> {
    return this.guard(`load run ${id}`, async (db) => {
      const tx = db.transaction(['runs', 'metrics', 'samples'], 'readonly');
      const [run, metrics, samples] = await Promise.all([
        tx.objectStore('runs').get(id),
        tx.objectStore('metrics').getAll(runRange(id)),
        tx.objectStore('samples').getAll(runRange(id)),
        tx.done,
      ]);
      if (!run) throw new StorageError('other', `Run ${id} is not saved in this browser (it may have been deleted in another tab).`);
      const { recipe, ...summary } = run;
      return { summary, recipe, records: metrics.map((m) => m.record), samples: samples.map((s) => s.sample) };
    });
  }

  /** Rewrites a run's summary alone (its state changed, nothing new was logged). */
  async saveSummary(summary: RunSummary): Promise<void> {
    await this.guard(`save run "${summary.name}"`, async (db) => {
      const tx = db.transaction('runs', 'readwrite');
      const old = await tx.store.get(summary.id);
      if (old) await tx.store.put({ ...old, ...summary });
      await tx.done;
    });
  }

  /** Replaces the run's checkpoint (one per run: the latest). */
  async saveCheckpoint(record: CheckpointRecord): Promise<void> {
    await this.guard('save a checkpoint', async (db) => {
      const tx = db.transaction('checkpoints', 'readwrite');
      await Promise.all([tx.store.put(record), tx.done]);
    });
  }

  async loadCheckpoint(runId: string): Promise<CheckpointRecord | undefined> {
    return this.guard(`load the checkpoint of run ${runId}`, (db) => db.get('checkpoints', runId));
  }

  /**
   * Drops the rows logged after a checkpoint, so a resumed run appends where it continues: rows at
   * sequence numbers ≥ `records` (metrics) and ≥ `samples`, and the summary's counts with them.
   */
  async truncateRows(summary: RunSummary, records: number, samples: number): Promise<void> {
    await this.guard(`rewind run "${summary.name}"`, async (db) => {
      const tx = db.transaction(['runs', 'metrics', 'samples'], 'readwrite');
      const runs = tx.objectStore('runs');
      const old = await runs.get(summary.id);
      await Promise.all([
        old ? runs.put({ ...old, ...summary, metricsRows: records, samples }) : undefined,
        tx.objectStore('metrics').delete(IDBKeyRange.bound([summary.id, records], [summary.id, Number.MAX_SAFE_INTEGER])),
        tx.objectStore('samples').delete(IDBKeyRange.bound([summary.id, samples], [summary.id, Number.MAX_SAFE_INTEGER])),
        tx.done,
      ]);
    });
  }

  async deleteRun(id: string): Promise<void> {
    await this.guard(`delete run ${id}`, async (db) => {
      const tx = db.transaction(['runs', 'metrics', 'samples', 'checkpoints'], 'readwrite');
      await Promise.all([
        tx.objectStore('checkpoints').delete(id),
        tx.objectStore('runs').delete(id),
        tx.objectStore('metrics').delete(runRange(id)),
        tx.objectStore('samples').delete(runRange(id)),
        tx.done,
      ]);
    });
  }
}
