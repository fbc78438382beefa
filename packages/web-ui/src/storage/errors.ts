// Storage failures in words a person can act on. IndexedDB reports them as DOMExceptions with
// terse names ("QuotaExceededError"); the page shows these sentences in a banner instead, and
// nothing here is ever caught and dropped (docs/ui.md §0: storage errors are shown, never swallowed).

/** A storage failure; `message` is one sentence saying what happened and what to do. */
export class StorageError extends Error {
  constructor(
    readonly kind: 'quota' | 'blocked' | 'version' | 'unavailable' | 'closed' | 'other',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // comlink carries an error's name and message across the worker boundary; the name lets the
    // page tell a storage problem from a bug.
    this.name = 'StorageError';
  }
}

export const BLOCKED_MESSAGE =
  "Horizon's saved runs need a storage upgrade, but another Horizon tab still has the old storage open: close the other Horizon tabs (or reload them) and this tab will continue.";
export const BLOCKING_MESSAGE =
  'A newer version of Horizon was opened in another tab and upgraded the saved-runs storage; reload this tab to keep saving runs.';
export const TERMINATED_MESSAGE = 'The browser closed the saved-runs storage unexpectedly (storage cleared or disk error); reload the page to reopen it.';

function errorName(error: unknown): string {
  if (error && typeof error === 'object' && 'name' in error && typeof error.name === 'string') return error.name;
  return '';
}

/** Maps whatever IndexedDB threw to a StorageError whose message says what to do; `doing` names the operation. */
export function toStorageError(error: unknown, doing: string): StorageError {
  if (error instanceof StorageError) return error;
  const name = errorName(error);
  const detail = error instanceof Error || (error && typeof error === 'object' && 'message' in error) ? String((error as Error).message) : String(error);
  switch (name) {
    case 'QuotaExceededError':
      return new StorageError(
        'quota',
        `Could not ${doing}: this site's browser storage is full. Delete saved runs you no longer need, or allow more storage in the browser's site settings.`,
        { cause: error },
      );
    case 'VersionError':
      return new StorageError('version', `Could not ${doing}: the saved runs were written by a newer version of Horizon; reload to get it.`, { cause: error });
    case 'InvalidStateError':
    case 'SecurityError':
      return new StorageError(
        'unavailable',
        `Could not ${doing}: this browser does not allow IndexedDB here (private window or blocked site data) — ${detail}.`,
        {
          cause: error,
        },
      );
    case 'AbortError':
    case 'UnknownError':
      return new StorageError('other', `Could not ${doing}: the browser aborted the write (${name}: ${detail}). Reload and try again.`, { cause: error });
    default:
      return new StorageError('other', `Could not ${doing}: ${name ? `${name}: ` : ''}${detail}.`, { cause: error });
  }
}

/** True for a StorageError, also after it crossed the worker boundary (only name and message survive). */
export function isStorageError(error: unknown): boolean {
  return errorName(error) === 'StorageError';
}
