// File-system failures of a run as one sentence each (docs/reliability.md §6; docs/conventions.md §11): the
// path, what went wrong in words, and what to do, instead of Node's `ENOSPC: no space left on
// device, write` and a stack. Only errors that a person can fix are translated; anything else is a
// bug and keeps its stack.

import { InputError } from '@horizon/core';

const REASONS: Record<string, string> = {
  ENOSPC: 'there is no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EACCES: 'permission is denied',
  EPERM: 'the operation is not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'it is a directory, not a file',
  ENAMETOOLONG: 'the name is too long for the file system',
  ENOENT: 'it does not exist',
  EEXIST: 'it already exists',
  EMFILE: 'the process has too many open files',
  ENFILE: 'the system has too many open files',
  EIO: 'the device reported an I/O error',
  ELOOP: 'the path has too many symbolic links',
};

export function isFsError(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && Object.hasOwn(REASONS, code);
}

/** Cuts a path for a message (a 10 MB name must not make a 10 MB line). */
export function shortPath(path: string): string {
  return path.length <= 200 ? path : `${path.slice(0, 120)}…${path.slice(-60)}`;
}

/**
 * The InputError for a file-system failure: "cannot <doing> <path>: <reason>; <remedy>".
 * `doing` says what Horizon was doing ("create the run directory", "write a checkpoint in").
 */
export function fsInputError(error: NodeJS.ErrnoException, doing: string, path: string | undefined, remedy: string): InputError {
  const code = error.code as string;
  const where = path ?? error.path;
  return new InputError('run', `cannot ${doing}${where ? ` ${shortPath(where)}` : ''}: ${REASONS[code]} (${code}); ${remedy}`);
}
