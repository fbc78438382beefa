// The IndexedDB schema for runs, through idb. One database, "horizon":
//   runs      key id            RunRecord: the run's summary and its recipe
//   metrics   key [runId, seq]  one metrics.jsonl record each, in log order
//   samples   key [runId, seq]  one samples.jsonl record each, in log order
//   checkpoints key runId       a live run's latest checkpoint (version 2): core's Checkpoint as
//                               structured-cloned data, and how many rows were logged when it was taken
// Compound keys keep a run's rows together, so a run loads with one key-range read per store and
// a live run appends with plain puts.

import type { Checkpoint, MetricsRecord } from '@horizon/core';
import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { ReplaySample, RunPosition, RunSummary } from '../engine/api.ts';
import { BLOCKED_MESSAGE, BLOCKING_MESSAGE, StorageError, TERMINATED_MESSAGE, toStorageError } from './errors.ts';

export interface RunRecord extends RunSummary {
  recipe: Record<string, unknown>;
}

/** A live run's latest checkpoint; resuming truncates the run's rows to the counts logged when it was taken. */
export interface CheckpointRecord {
  runId: string;
  checkpoint: Checkpoint;
  /** Where the run was when the checkpoint was taken. */
  position: RunPosition;
  /** Metrics rows and samples logged up to the checkpoint. */
  records: number;
  samples: number;
  savedAt: number;
}

export interface HorizonDb extends DBSchema {
  checkpoints: { key: string; value: CheckpointRecord };
  runs: { key: string; value: RunRecord };
  metrics: { key: [string, number]; value: { runId: string; seq: number; record: MetricsRecord } };
  samples: { key: [string, number]; value: { runId: string; seq: number; sample: ReplaySample } };
}

export const DB_NAME = 'horizon';
export const DB_VERSION = 2;

export type Db = IDBPDatabase<HorizonDb>;

/**
 * Opens the database. `notify` receives sentences for events that happen outside any call: this
 * tab blocking another tab's upgrade (we close our connection so theirs proceeds), our upgrade
 * blocked by another tab, the browser closing the connection.
 */
export async function openHorizonDb(notify: (message: string) => void, name = DB_NAME): Promise<Db> {
  if (typeof indexedDB === 'undefined')
    throw new StorageError('unavailable', 'This browser has no IndexedDB here, so runs cannot be saved (they still open and show).');
  try {
    const db = await openDB<HorizonDb>(name, DB_VERSION, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('runs', { keyPath: 'id' });
          database.createObjectStore('metrics', { keyPath: ['runId', 'seq'] });
          database.createObjectStore('samples', { keyPath: ['runId', 'seq'] });
        }
        if (oldVersion < 2) database.createObjectStore('checkpoints', { keyPath: 'runId' });
      },
      blocked() {
        notify(BLOCKED_MESSAGE);
      },
      blocking() {
        db.close();
        notify(BLOCKING_MESSAGE);
      },
      terminated() {
        notify(TERMINATED_MESSAGE);
      },
    });
    return db;
  } catch (error) {
    throw toStorageError(error, 'open the saved runs');
  }
}
