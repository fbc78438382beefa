// POSIX-like paths for the sandbox's virtual file system. Every path the agent types is resolved
// against a working directory and normalised to an absolute form with no `.`, `..` or repeated
// slashes. `..` at the root stays at the root, as it does on a real system, so no spelling of a
// path can name anything outside `/` (the sandbox has no outside, but a monitor's rules compare
// normalised paths and must not be fooled by `/a/../.eval` or `//.eval`).

/** The absolute, normalised form of `path` seen from `cwd` (itself absolute). */
export function resolvePath(cwd: string, path: string): string {
  const parts: string[] = [];
  const joined = path.startsWith('/') ? path : `${cwd}/${path}`;
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The folder holding `path` (absolute, normalised); the root's parent is the root. */
export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** The last component of `path` (absolute, normalised); empty for the root. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `child` joined under `dir` (both normalised, `child` one component). */
export function joinPath(dir: string, child: string): string {
  return dir === '/' ? `/${child}` : `${dir}/${child}`;
}

/** True when `path` is `root` or lies below it (both absolute, normalised). */
export function isWithin(path: string, root: string): boolean {
  return root === '/' || path === root || path.startsWith(`${root}/`);
}

/** The folders from `/` down to `path`'s parent, e.g. `/a/b/c` → [`/`, `/a`, `/a/b`]. */
export function ancestorsOf(path: string): string[] {
  const out = ['/'];
  let at = 0;
  for (;;) {
    const next = path.indexOf('/', at + 1);
    if (next < 0) return out;
    out.push(path.slice(0, next));
    at = next;
  }
}

/** UTF-8 length of `text` without allocating, so caps are in bytes as a person reads "1 MiB". */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The longest prefix of `text` whose UTF-8 form fits in `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) return text.slice(0, i);
    bytes += size;
    if (pair) i++;
  }
  return text;
}
