// Pathname expansion: an unquoted word with `*`, `?` or `[` becomes the sorted list of paths it
// matches, as sh does (`cat src/*.ts`). Each component with a wildcard lists one folder and keeps
// the names matching it, by the linear-time matcher in glob.ts; a leading `.` must be matched
// explicitly; a word that matches nothing stays as typed (bash's default). A protected folder
// cannot be listed, so its contents never match, and the denied listing is in the access record.
// The entries visited are capped (ShellLimits.maxFindVisits); past the cap the word stays as typed.

import type { RecordingFs } from '../access-log.ts';
import { compileGlob, hasGlobChars, matchGlob } from '../glob.ts';
import type { WorkBudget } from './limits.ts';

/** Removes glob escapes: `a\*b` → `a*b`. */
export function unescapeGlob(pattern: string): string {
  return pattern.replace(/\\(.)/g, '$1');
}

/** The paths `pattern` (glob-escaped where the agent quoted) matches, sorted, or [] when none. */
export function expandPathname(pattern: string, fs: RecordingFs, maxVisits: number, work: WorkBudget): string[] {
  const absolute = pattern.startsWith('/');
  const segments = pattern.split('/').filter((s) => s !== '');
  // Each candidate is [what the agent will see, the folder it names].
  let candidates: [string, string][] = [[absolute ? '/' : '', absolute ? '/' : '.']];
  let visits = 0;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    const last = index === segments.length - 1;
    const next: [string, string][] = [];
    for (const [shown, dir] of candidates) {
      const join = (name: string): [string, string] => [shown === '' ? name : shown.endsWith('/') ? `${shown}${name}` : `${shown}/${name}`, `${dir}/${name}`];
      if (!hasGlobChars(segment)) {
        const candidate = join(unescapeGlob(segment));
        const stat = fs.stat(candidate[1]);
        if (stat.ok && (last || stat.value.kind === 'dir')) next.push(candidate);
        continue;
      }
      const listing = fs.list(dir);
      if (!listing.ok) continue;
      const glob = compileGlob(segment);
      for (const entry of listing.value) {
        if (++visits > maxVisits) return [];
        if (!last && entry.kind !== 'dir') continue;
        if (matchGlob(glob, entry.name, { dot: false }, work)) next.push(join(entry.name));
      }
      work.check();
    }
    candidates = next;
  }
  return candidates.map(([shown]) => shown).sort();
}
