// Where a live run's latest IndexedDB checkpoint is, read in the page the way the app stores it
// (packages/web-ui/src/storage/db.ts: database "horizon", store "checkpoints"). A test that reloads
// mid-run waits for this instead of a fixed time: checkpoints are taken on a wall-clock interval,
// and a fixed wait that fits one machine's step speed lets a faster one finish the phase first.

type CheckpointPage = { evaluate<R>(fn: () => Promise<R>): Promise<R> };

export interface SavedPosition {
  phase: string;
  step: number;
  total: number;
}

/** The position of the newest checkpoint any run saved, or null while there is none. */
export async function savedCheckpointPosition(page: CheckpointPage): Promise<SavedPosition | null> {
  return page.evaluate(
    () =>
      new Promise<SavedPosition | null>((resolve, reject) => {
        // No version: open what exists, never create or upgrade the app's database.
        const open = indexedDB.open('horizon');
        // The app has not created it yet: abort, so that the app's own upgrade still builds it.
        open.onupgradeneeded = () => open.transaction?.abort();
        open.onerror = () => (open.error?.name === 'AbortError' ? resolve(null) : reject(open.error));
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('checkpoints')) {
            db.close();
            resolve(null);
            return;
          }
          const all = db.transaction('checkpoints', 'readonly').objectStore('checkpoints').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            db.close();
            const records = all.result as { position: SavedPosition; savedAt: number }[];
            const newest = records.sort((a, b) => b.savedAt - a.savedAt)[0];
            resolve(newest ? newest.position : null);
          };
        };
      }),
  );
}
