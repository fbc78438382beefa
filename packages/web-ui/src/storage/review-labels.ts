// The learner's labels of the anti-hack monitor's review queue (docs/ui.md §19), in IndexedDB beside
// the saved runs but in a database of their own ("horizon-review", one store keyed by the command
// line), so adding them needed no upgrade of the runs' schema and clearing one never touches the
// other. Without IndexedDB (a private window) the labels live in memory for the page's life and the
// review says so.

import { type DBSchema, type IDBPDatabase, openDB } from 'idb';
import type { ReviewLabel } from '../engine/walk-api.ts';
import { toStorageError } from './errors.ts';

interface ReviewDb extends DBSchema {
  labels: { key: string; value: { line: string; label: ReviewLabel; labelledAt: number } };
}

export const REVIEW_DB_NAME = 'horizon-review';

export class ReviewLabels {
  private opened: Promise<IDBPDatabase<ReviewDb> | null> | undefined;
  private readonly memory = new Map<string, ReviewLabel>();
  /** Why the labels are not in IndexedDB; null while they are. */
  problem: string | null = null;

  constructor(private readonly name = REVIEW_DB_NAME) {}

  private open(): Promise<IDBPDatabase<ReviewDb> | null> {
    this.opened ??= (async () => {
      if (typeof indexedDB === 'undefined') {
        this.problem = 'this browser has no IndexedDB here';
        return null;
      }
      try {
        return await openDB<ReviewDb>(this.name, 1, {
          upgrade(database) {
            database.createObjectStore('labels', { keyPath: 'line' });
          },
        });
      } catch (error) {
        this.problem = toStorageError(error, 'open the review labels').message;
        return null;
      }
    })();
    return this.opened;
  }

  async all(): Promise<Map<string, ReviewLabel>> {
    const db = await this.open();
    if (!db) return new Map(this.memory);
    try {
      return new Map((await db.getAll('labels')).map((r) => [r.line, r.label]));
    } catch (error) {
      throw toStorageError(error, 'read the review labels');
    }
  }

  /** Stores `label` for `line`, or removes the line's label when `label` is null. */
  async set(line: string, label: ReviewLabel | null): Promise<void> {
    const db = await this.open();
    if (!db) {
      if (label) this.memory.set(line, label);
      else this.memory.delete(line);
      return;
    }
    try {
      if (label) await db.put('labels', { line, label, labelledAt: Date.now() });
      else await db.delete('labels', line);
    } catch (error) {
      throw toStorageError(error, 'save the review label');
    }
  }
}
