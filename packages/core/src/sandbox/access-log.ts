// The access record: every file-system operation a tool call makes, with the path it touched, what
// it did and which command did it, denied or not. An anti-hack monitor reads it after (or, for a
// dry run, before) a call to see that `find . | xargs cat` read `/.eval/expected.txt`, which the
// command text alone hides. Commands never hold the VirtualFs itself, only a RecordingFs bound to
// their name, so no operation can skip the record.
//
// Kinds: `read` a file's content, `write` (also append and delete), `list` a folder, `stat` ask what
// a path is, `exec` a file an environment's command runs (a test runner), `net` a URL fetched (the
// path is the URL).

import { FS_ERROR_TEXT, type FsChange, type FsEntry, type FsErrorCode, type FsResult, type FsStat, type VirtualFs } from './virtual-fs.ts';

export type AccessKind = 'read' | 'write' | 'list' | 'stat' | 'exec' | 'net';

export interface Access {
  kind: AccessKind;
  /** The absolute, normalised path (a URL for `net`). */
  path: string;
  /** The command that did it (`cat`, `grep`, `sh` for the shell's own redirections and globs). */
  command: string;
  /** Whether it succeeded, or the error it got (`EACCES` for a protected path). */
  outcome: 'ok' | FsErrorCode | 'ENOHOST';
  /** Extra context, e.g. `git show HEAD~1:src/a.ts` for a file read out of the simulated history. */
  detail?: string;
}

/** One tool call's accesses, in order. */
export class AccessLog {
  readonly entries: Access[] = [];

  add(access: Access): void {
    this.entries.push(access);
  }

  /** The accesses that touched a protected path (denied or, when the policy is open, allowed). */
  touching(isProtected: (path: string) => boolean): Access[] {
    return this.entries.filter((a) => a.kind !== 'net' && isProtected(a.path));
  }
}

/** The file system as one command sees it: every operation goes through and is recorded. */
export class RecordingFs {
  constructor(
    private readonly fs: VirtualFs,
    private readonly log: AccessLog,
    readonly command: string,
  ) {}

  /** The same file system and record, acting as another command (xargs running cat). */
  as(command: string): RecordingFs {
    return new RecordingFs(this.fs, this.log, command);
  }

  get cwd(): string {
    return this.fs.cwd;
  }

  resolve(path: string): string {
    return this.fs.resolve(path);
  }

  isProtected(path: string): boolean {
    return this.fs.isProtected(path);
  }

  stat(path: string): FsResult<FsStat> {
    return this.note('stat', path, this.fs.stat(path));
  }

  readFile(path: string): FsResult<string> {
    return this.note('read', path, this.fs.readFile(path));
  }

  list(path: string): FsResult<FsEntry[]> {
    return this.note('list', path, this.fs.list(path));
  }

  writeFile(path: string, content: string, append = false): FsResult<void> {
    return this.note('write', path, this.fs.writeFile(path, content, append));
  }

  remove(path: string, recursive = false): FsResult<void> {
    return this.note('write', path, this.fs.remove(path, recursive));
  }

  changeDirectory(path: string): FsResult<string> {
    return this.note('list', path, this.fs.changeDirectory(path));
  }

  /** Records a file an environment's command runs; denied (and not to be run) when protected. */
  exec(path: string): FsResult<void> {
    return this.note('exec', path, this.fs.isProtected(path) ? { ok: false, code: 'EACCES', message: FS_ERROR_TEXT.EACCES } : { ok: true, value: undefined });
  }

  /** Records a URL fetched, or refused with ENOHOST. */
  fetched(url: string, found: boolean): void {
    this.log.add({ kind: 'net', path: url, command: this.command, outcome: found ? 'ok' : 'ENOHOST' });
  }

  /** Records a read that did not go through the file system (e.g. out of the simulated git history). */
  readElsewhere(path: string, detail: string): void {
    this.log.add({ kind: 'read', path: this.fs.resolve(path), command: this.command, outcome: 'ok', detail });
  }

  /** The agent's changes against the base (for `git diff`), recorded as a read of each changed path. */
  changes(): FsChange[] {
    const changes = this.fs.changes().filter((c) => !this.fs.isProtected(c.path));
    for (const change of changes) this.log.add({ kind: 'read', path: change.path, command: this.command, outcome: 'ok', detail: 'diff against the base' });
    return changes;
  }

  private note<T>(kind: AccessKind, path: string, result: FsResult<T>): FsResult<T> {
    this.log.add({ kind, path: this.fs.resolve(path), command: this.command, outcome: result.ok ? 'ok' : result.code });
    return result;
  }
}
