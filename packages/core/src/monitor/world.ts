// What the monitor needs of an environment's sandbox: the live file system, what in it is
// protected (folders whose files must not reach the agent, and the texts that are the answer —
// hidden expected outputs, the reference solution), the upstream URLs and future commits the rules
// look for, and a way to build the episode's shell over another file system, so the judge can
// dry-run a call in a copy-on-write fork (VirtualFs.fork) and the guard can run it in a decoy.
// An environment implements it once (HiddenTestFS in envs/hidden-test-fs/episode-sandbox.ts).

import type { Shell } from '../sandbox/shell/shell.ts';
import type { VirtualFs } from '../sandbox/virtual-fs.ts';
import type { RuleContext } from './rule.ts';

/**
 * `dry`: a shell whose commands leave the episode's own state alone (a `submit` in a dry run does
 * not end the episode); `live`: the episode's commands, for a fabricated call that stands in for
 * the real one.
 */
export type ShellEffects = 'dry' | 'live';

export interface MonitorWorld {
  /** The episode's file system, which the real call runs on. */
  readonly fs: VirtualFs;
  /** Absolute, normalised folders or files whose content is the answer (HiddenTestFS: `/.eval`). */
  readonly protectedRoots: readonly string[];
  /** Texts that are protected content wherever they turn up (the reference solution, each hidden case). */
  readonly protectedTexts: readonly string[];
  /** URL prefixes of the upstream solution; empty when the task has none. */
  readonly upstreamUrls: readonly string[];
  /** Hashes and refs of commits after HEAD; empty when the task has none. */
  readonly futureRevisions: readonly string[];
  /** The episode's shell over `fs` (the same commands, run_tests and submit included). */
  shellOver(fs: VirtualFs, effects: ShellEffects): Shell;
}

/** What the rules read of a world now. */
export function ruleContext(world: MonitorWorld): RuleContext {
  return {
    cwd: world.fs.cwd,
    protectedRoots: world.protectedRoots,
    upstreamUrls: world.upstreamUrls,
    futureRevisions: world.futureRevisions,
  };
}
