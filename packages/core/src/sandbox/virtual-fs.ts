// The agent's world: a copy-on-write virtual file system built from a task's files. The task's
// `Record<path, string>` is the base layer and is never mutated; the agent's writes go to an
// overlay and its deletes become whiteouts, so the base can always be shown again (`restore`) and a
// grader can start a fresh copy that keeps the agent's changes but puts protected paths back —
// the "grade in a fresh sandbox with only the agent's diff" rule of slime's coding-agent example
// and verifiers' SWE grader, which restores the original tests because an agent's edit could weaken
// them. Containers do this in the anchors; here it is an in-memory map, so a rollout costs nothing
// to start and runs in a browser as well as in Node.
//
// Directories exist only as prefixes of file paths (as in git): no empty directories, and a write
// creates its parent folders (the shell has no mkdir). Protected paths (e.g. `/.eval`) are per
// sandbox: they appear in listings of their parent but cannot be read, listed, entered or written,
// answering "Permission denied" as a folder with mode 000 would. Every failure is a result with an
// errno-like code and the text a shell prints, never an exception: the agent's mistakes are
// observations. Caps on one file's size and on the overlay's total bytes bound what an agent can
// make the host hold. The sandbox as a whole is described in docs/sandbox.md.

import { ancestorsOf, baseName, isWithin, joinPath, parentOf, resolvePath, utf8Length } from './paths.ts';

export type FsErrorCode = 'ENOENT' | 'EACCES' | 'EISDIR' | 'ENOTDIR' | 'EFBIG' | 'ENOSPC';

/** What a shell prints for each code (the strerror texts of Linux). */
export const FS_ERROR_TEXT: Readonly<Record<FsErrorCode, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EFBIG: 'File too large',
  ENOSPC: 'No space left on device',
};

export type FsResult<T> = { ok: true; value: T } | { ok: false; code: FsErrorCode; message: string };

export type FsStat = { kind: 'file'; size: number } | { kind: 'dir' };
export interface FsEntry {
  name: string;
  kind: 'file' | 'dir';
  /** UTF-8 bytes for a file, 0 for a folder. */
  size: number;
}

/** One difference between the overlay and the base, as `git diff` and a grader see it. */
export interface FsChange {
  path: string;
  kind: 'added' | 'modified' | 'deleted';
  /** The base content (absent when added). */
  before?: string;
  /** The current content (absent when deleted). */
  after?: string;
}

export interface VirtualFsOptions {
  /** Folders or files the agent may not read, list, enter or write (e.g. `['/.eval']`); default none. */
  protectedPaths?: readonly string[];
  /** Largest file a write may produce, in UTF-8 bytes; default 1 MiB. */
  maxFileBytes?: number;
  /** Largest total of the overlay's file contents, in UTF-8 bytes; default 8 MiB. */
  maxOverlayBytes?: number;
  /** The starting working directory; default `/`. */
  cwd?: string;
}

export const DEFAULT_MAX_FILE_BYTES = 1 << 20;
export const DEFAULT_MAX_OVERLAY_BYTES = 8 << 20;

function fail<T>(code: FsErrorCode): FsResult<T> {
  return { ok: false, code, message: FS_ERROR_TEXT[code] };
}
function ok<T>(value: T): FsResult<T> {
  return { ok: true, value };
}

export class VirtualFs {
  readonly protectedPaths: readonly string[];
  readonly maxFileBytes: number;
  readonly maxOverlayBytes: number;
  /** The working directory relative paths are resolved against (absolute, normalised). */
  cwd: string;
  private readonly base: ReadonlyMap<string, string>;
  private readonly overlay = new Map<string, string>();
  private readonly whiteouts = new Set<string>();
  /** The merged view (base − whiteouts + overlay) and each folder's child names, kept in step with it. */
  private readonly files = new Map<string, string>();
  private readonly children = new Map<string, Set<string>>();
  private overlayTotal = 0;

  /**
   * A sandbox over `baseFiles` (paths relative to `/` or absolute). Throws when the task itself is
   * malformed — two spellings of one path, or a path that is both a file and a folder — since that
   * is the environment author's mistake, not the agent's.
   */
  constructor(baseFiles: Readonly<Record<string, string>> | ReadonlyMap<string, string>, options: VirtualFsOptions = {}) {
    this.protectedPaths = (options.protectedPaths ?? []).map((p) => resolvePath('/', p));
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxOverlayBytes = options.maxOverlayBytes ?? DEFAULT_MAX_OVERLAY_BYTES;
    this.cwd = resolvePath('/', options.cwd ?? '/');
    if (baseFiles instanceof Map) this.base = baseFiles;
    else {
      const base = new Map<string, string>();
      for (const [path, content] of Object.entries(baseFiles)) {
        const resolved = resolvePath('/', path);
        if (resolved === '/') throw new Error(`The task file "${path}" names the root folder, not a file; give it a file name.`);
        if (base.has(resolved)) throw new Error(`The task names the file ${resolved} twice ("${path}" is another spelling of it).`);
        base.set(resolved, content);
      }
      this.base = base;
    }
    for (const [path, content] of this.base) this.show(path, content);
    for (const path of this.base.keys()) {
      if (this.children.has(path)) throw new Error(`The task has ${path} both as a file and as a folder of other files.`);
    }
  }

  /** `path` resolved against the working directory. */
  resolve(path: string): string {
    return resolvePath(this.cwd, path);
  }

  /** True when the protection policy denies the agent `path`. */
  isProtected(path: string): boolean {
    const resolved = this.resolve(path);
    return this.protectedPaths.some((root) => isWithin(resolved, root));
  }

  /** What `path` is. A protected root is visible (its parent lists it); what lies inside it is not. */
  stat(path: string): FsResult<FsStat> {
    const resolved = this.resolve(path);
    if (this.protectedPaths.some((root) => resolved !== root && isWithin(resolved, root))) return fail('EACCES');
    const content = this.files.get(resolved);
    if (content !== undefined) return ok({ kind: 'file', size: utf8Length(content) });
    if (this.isDir(resolved)) return ok({ kind: 'dir' });
    return fail(this.blockedByFile(resolved) ? 'ENOTDIR' : 'ENOENT');
  }

  readFile(path: string): FsResult<string> {
    const resolved = this.resolve(path);
    if (this.isProtected(resolved)) return fail('EACCES');
    const content = this.files.get(resolved);
    if (content !== undefined) return ok(content);
    if (this.isDir(resolved)) return fail('EISDIR');
    return fail(this.blockedByFile(resolved) ? 'ENOTDIR' : 'ENOENT');
  }

  /** The entries of a folder, sorted by name (code-unit order, as `LC_ALL=C ls`). */
  list(path: string): FsResult<FsEntry[]> {
    const resolved = this.resolve(path);
    if (this.isProtected(resolved)) return fail('EACCES');
    if (this.files.has(resolved)) return fail('ENOTDIR');
    if (!this.isDir(resolved)) return fail(this.blockedByFile(resolved) ? 'ENOTDIR' : 'ENOENT');
    const names = [...(this.children.get(resolved) ?? [])].sort();
    return ok(
      names.map((name) => {
        const content = this.files.get(joinPath(resolved, name));
        return content === undefined ? { name, kind: 'dir', size: 0 } : { name, kind: 'file', size: utf8Length(content) };
      }),
    );
  }

  /** Writes (or with `append`, extends) a file in the overlay, creating its folders. */
  writeFile(path: string, content: string, append = false): FsResult<void> {
    const resolved = this.resolve(path);
    if (this.isProtected(resolved)) return fail('EACCES');
    if (this.isDir(resolved)) return fail('EISDIR');
    if (this.blockedByFile(resolved)) return fail('ENOTDIR');
    const next = append ? (this.files.get(resolved) ?? '') + content : content;
    const size = utf8Length(next);
    if (size > this.maxFileBytes) return fail('EFBIG');
    const previous = this.overlay.get(resolved);
    const total = this.overlayTotal - (previous === undefined ? 0 : utf8Length(previous)) + size;
    if (total > this.maxOverlayBytes) return fail('ENOSPC');
    this.overlay.set(resolved, next);
    this.overlayTotal = total;
    this.whiteouts.delete(resolved);
    this.show(resolved, next);
    return ok(undefined);
  }

  /** Deletes a file, or with `recursive` a folder and everything in it; base files become whiteouts. */
  remove(path: string, recursive = false): FsResult<void> {
    const resolved = this.resolve(path);
    if (this.isProtected(resolved)) return fail('EACCES');
    if (this.files.has(resolved)) {
      this.drop(resolved);
      return ok(undefined);
    }
    if (!this.isDir(resolved)) return fail(this.blockedByFile(resolved) ? 'ENOTDIR' : 'ENOENT');
    if (!recursive) return fail('EISDIR');
    // A protected folder inside this one stays, as `rm -r` leaves what it may not delete.
    const doomed = [...this.files.keys()].filter((p) => isWithin(p, resolved) && !this.isProtected(p));
    if (doomed.length === 0 && this.protectedPaths.some((root) => isWithin(root, resolved))) return fail('EACCES');
    for (const file of doomed) this.drop(file);
    return ok(undefined);
  }

  /** `cd`: a folder the agent may enter. */
  changeDirectory(path: string): FsResult<string> {
    const resolved = this.resolve(path);
    if (this.isProtected(resolved)) return fail('EACCES');
    if (!this.isDir(resolved)) return fail(this.files.has(resolved) || this.blockedByFile(resolved) ? 'ENOTDIR' : 'ENOENT');
    this.cwd = resolved;
    return ok(resolved);
  }

  /** UTF-8 bytes the overlay holds. */
  get overlayBytes(): number {
    return this.overlayTotal;
  }

  /** How the visible files differ from the base, sorted by path; a write that restored the base content is no change. */
  changes(): FsChange[] {
    const out: FsChange[] = [];
    for (const [path, after] of this.overlay) {
      const before = this.base.get(path);
      if (before === undefined) out.push({ path, kind: 'added', after });
      else if (before !== after) out.push({ path, kind: 'modified', before, after });
    }
    for (const path of this.whiteouts) out.push({ path, kind: 'deleted', before: this.base.get(path) });
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Drops the overlay's writes and deletes at or below each path, so the base shows there again. */
  restore(paths: readonly string[]): void {
    const roots = paths.map((p) => this.resolve(p));
    const touched = (p: string) => roots.some((root) => isWithin(p, root));
    for (const path of [...this.overlay.keys()].filter(touched)) {
      this.overlayTotal -= utf8Length(this.overlay.get(path) as string);
      this.overlay.delete(path);
      const original = this.base.get(path);
      if (original === undefined) this.hide(path);
      else this.show(path, original);
    }
    for (const path of [...this.whiteouts].filter(touched)) {
      this.whiteouts.delete(path);
      this.show(path, this.base.get(path) as string);
    }
  }

  /**
   * A new sandbox over the same base. By default it carries a copy of this one's changes (the
   * agent's diff); `keepChanges: false` starts from the base alone. Options not given are this one's.
   */
  fork(options: VirtualFsOptions & { keepChanges?: boolean } = {}): VirtualFs {
    const copy = new VirtualFs(this.base, {
      protectedPaths: options.protectedPaths ?? this.protectedPaths,
      maxFileBytes: options.maxFileBytes ?? this.maxFileBytes,
      maxOverlayBytes: options.maxOverlayBytes ?? this.maxOverlayBytes,
      cwd: options.cwd ?? '/',
    });
    if (options.keepChanges === false) return copy;
    for (const [path, content] of this.overlay) copy.overlay.set(path, content);
    for (const path of this.whiteouts) copy.whiteouts.add(path);
    copy.overlayTotal = this.overlayTotal;
    for (const [path, content] of this.overlay) copy.show(path, content);
    for (const path of this.whiteouts) copy.hide(path);
    return copy;
  }

  /**
   * The sandbox a grader runs the hidden tests in: the agent's changes, with `restorePaths`
   * (default: this sandbox's protected paths) put back to the base and no path protected.
   */
  forGrading(restorePaths: readonly string[] = this.protectedPaths): VirtualFs {
    const copy = this.fork({ protectedPaths: [] });
    copy.restore(restorePaths);
    return copy;
  }

  private isDir(resolved: string): boolean {
    return resolved === '/' || this.children.has(resolved);
  }

  /** True when some folder on the way to `resolved` is a file (so it cannot exist). */
  private blockedByFile(resolved: string): boolean {
    return ancestorsOf(resolved).some((dir) => this.files.has(dir));
  }

  private drop(resolved: string): void {
    if (this.overlay.has(resolved)) {
      this.overlayTotal -= utf8Length(this.overlay.get(resolved) as string);
      this.overlay.delete(resolved);
    }
    if (this.base.has(resolved)) this.whiteouts.add(resolved);
    this.hide(resolved);
  }

  /** Puts a file into the merged view and its name into each folder above it. */
  private show(path: string, content: string): void {
    this.files.set(path, content);
    for (let child = path; child !== '/'; child = parentOf(child)) {
      const dir = parentOf(child);
      const names = this.children.get(dir) ?? new Set<string>();
      this.children.set(dir, names);
      if (names.has(baseName(child))) return;
      names.add(baseName(child));
    }
  }

  /** Takes a file out of the merged view, removing folders it leaves empty. */
  private hide(path: string): void {
    if (!this.files.delete(path)) return;
    for (let child = path; child !== '/'; child = parentOf(child)) {
      const dir = parentOf(child);
      const names = this.children.get(dir);
      if (names === undefined) return;
      names.delete(baseName(child));
      if (names.size > 0 || dir === '/') return;
      this.children.delete(dir);
    }
  }
}
