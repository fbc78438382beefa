// The depth-first walk find and grep -r share: sorted, parents before children, dotfiles included
// (as find and grep -r include them; only ls and the shell's globs hide them), a protected or
// unreadable folder reported and skipped, and at most `maxVisits` entries visited in all.

import type { RecordingFs } from '../../access-log.ts';
import type { WorkBudget } from '../limits.ts';

export interface WalkEntry {
  /** The path as the agent will see it: the starting point as typed, then `/name` per level. */
  shown: string;
  kind: 'file' | 'dir';
  depth: number;
}

export interface WalkOptions {
  maxDepth?: number;
  maxVisits: number;
  work: WorkBudget;
  /** Called for a folder that could not be listed, with the error text. */
  onError(shown: string, message: string): void;
}

/** Visits `start` and what lies below it; returns false when the visit cap stopped it. */
export function walk(fs: RecordingFs, start: string, kind: 'file' | 'dir', options: WalkOptions, visit: (entry: WalkEntry) => void): boolean {
  let visits = 0;
  const stack: WalkEntry[] = [{ shown: start, kind, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop() as WalkEntry;
    if (++visits > options.maxVisits) return false;
    options.work.charge(1);
    visit(entry);
    if (entry.kind !== 'dir' || (options.maxDepth !== undefined && entry.depth >= options.maxDepth)) continue;
    const listing = fs.list(entry.shown);
    if (!listing.ok) {
      options.onError(entry.shown, listing.message);
      continue;
    }
    const prefix = entry.shown.endsWith('/') ? entry.shown : `${entry.shown}/`;
    for (let k = listing.value.length - 1; k >= 0; k--) {
      const child = listing.value[k];
      stack.push({ shown: `${prefix}${child.name}`, kind: child.kind, depth: entry.depth + 1 });
    }
  }
  return true;
}
