// Every storage failure becomes one sentence the banner can show; nothing maps to silence.

import { describe, expect, it } from 'vitest';
import { isStorageError, StorageError, toStorageError } from './errors.ts';

describe('storage errors', () => {
  it('turns a quota failure into what to do about it', () => {
    const e = toStorageError(new DOMException('The quota has been exceeded.', 'QuotaExceededError'), 'save run "tiny"');
    expect(e.kind).toBe('quota');
    expect(e.message).toMatch(/^Could not save run "tiny": this site's browser storage is full\. Delete saved runs/);
    expect(e.name).toBe('StorageError');
  });

  it('maps version, availability and abort errors, and keeps unknown ones readable', () => {
    expect(toStorageError(new DOMException('x', 'VersionError'), 'open').kind).toBe('version');
    expect(toStorageError(new DOMException('no', 'InvalidStateError'), 'open').message).toMatch(/does not allow IndexedDB here .* no\./);
    expect(toStorageError(new DOMException('disk', 'UnknownError'), 'open').message).toMatch(/aborted the write \(UnknownError: disk\)/);
    expect(toStorageError('weird', 'open').message).toBe('Could not open: weird.');
  });

  it('recognises a StorageError by name after it crossed the worker boundary', () => {
    const crossed = Object.assign(new Error('m'), { name: 'StorageError' });
    expect(isStorageError(crossed)).toBe(true);
    expect(isStorageError(new Error('m'))).toBe(false);
    const original = new StorageError('quota', 'full');
    expect(toStorageError(original, 'x')).toBe(original);
  });
});
