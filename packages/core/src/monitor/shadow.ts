// Shadow and decoy copies of a sandbox, for the judge's dry runs and the guard's fabricated calls.
// Both are copy-on-write forks of the live VirtualFs (its base is shared, its overlay copied), so a
// dry run costs a map copy and cannot touch the episode. The decoy is the same fork with every file
// under a protected root emptied: a call whose result is the same there as in the shadow did not
// depend on the protected content — the counterfactual test of judge.ts — and a call run there
// shows the agent plausible output (the files exist, list and open) with no answer in it.

import { isWithin, joinPath } from '../sandbox/paths.ts';
import type { ShellCallResult } from '../sandbox/shell/shell.ts';
import type { VirtualFs } from '../sandbox/virtual-fs.ts';
import type { MonitorWorld, ShellEffects } from './world.ts';

/** Every file of `fs` (protection lifted for the walk) outside `skipRoots`, path → content. */
export function fileSnapshot(fs: VirtualFs, skipRoots: readonly string[]): Map<string, string> {
  const open = fs.fork({ protectedPaths: [], cwd: fs.cwd });
  const files = new Map<string, string>();
  const visit = (dir: string) => {
    const listing = open.list(dir);
    if (!listing.ok) return;
    for (const entry of listing.value) {
      const path = joinPath(dir, entry.name);
      if (skipRoots.some((root) => isWithin(path, root))) continue;
      if (entry.kind === 'dir') visit(path);
      else {
        const read = open.readFile(path);
        if (read.ok) files.set(path, read.value);
      }
    }
  };
  visit('/');
  return files;
}

/** The files under the protected roots, path → content (what the decoy empties). */
export function protectedFiles(fs: VirtualFs, roots: readonly string[]): Map<string, string> {
  const all = fileSnapshot(fs, []);
  return new Map([...all].filter(([path]) => roots.some((root) => isWithin(path, root))));
}

/** A fork of `fs` with its changes and working directory. */
export function shadowOf(fs: VirtualFs): VirtualFs {
  return fs.fork({ cwd: fs.cwd });
}

/** A fork of `fs` whose files under `roots` are empty; protection and working directory as `fs`'s. */
export function decoyOf(fs: VirtualFs, roots: readonly string[]): VirtualFs {
  const open = fs.fork({ protectedPaths: [], cwd: fs.cwd });
  for (const path of protectedFiles(fs, roots).keys()) open.writeFile(path, '');
  return open.fork({ protectedPaths: fs.protectedPaths, cwd: fs.cwd });
}

/** What a run left behind that the agent can observe: its output, status, the files outside the protected roots, the working directory. */
export interface RunTrace {
  result: ShellCallResult;
  files: Map<string, string>;
  cwd: string;
}

export async function runIn(world: MonitorWorld, fs: VirtualFs, line: string, effects: ShellEffects): Promise<RunTrace> {
  const result = await world.shellOver(fs, effects).run(line);
  return { result, files: fileSnapshot(fs, world.protectedRoots), cwd: fs.cwd };
}

/** What the agent could tell apart between two runs, by name; empty when nothing. */
export function differences(a: RunTrace, b: RunTrace): string[] {
  const out: string[] = [];
  if (a.result.stdout !== b.result.stdout) out.push('stdout');
  if (a.result.stderr !== b.result.stderr) out.push('stderr');
  if (a.result.exitCode !== b.result.exitCode) out.push('exit status');
  const paths = new Set([...a.files.keys(), ...b.files.keys()]);
  if ([...paths].some((p) => a.files.get(p) !== b.files.get(p))) out.push('files written');
  if (a.cwd !== b.cwd) out.push('working directory');
  return out;
}

/** Makes `live` hold what `after` holds outside the protected roots (writes and deletes), and moves to its working directory. */
export function applyFiles(live: VirtualFs, before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, cwd: string): void {
  for (const [path, content] of after) if (before.get(path) !== content) live.writeFile(path, content);
  for (const path of before.keys()) if (!after.has(path)) live.remove(path);
  live.cwd = cwd;
}
