// The rule stage's contract: a rule reads the facts of one command line (command-facts.ts) and the
// task's protected things, and says whether the line may reach them, with a reason a person can
// check. Rules are tuned for recall — they flag whatever could reach a protected path, URL or
// commit, including lines whose arguments are computed at run time — because the judge stage
// (judge.ts) runs every flagged call in a shadow copy and restores precision; a call no rule flags
// is never judged, so a rule's miss is the monitor's miss.

import type { CommandFact } from './command-facts.ts';

/** What the rules know about the task besides the line. */
export interface RuleContext {
  /** The working directory the call starts in. */
  cwd: string;
  /** Folders or files whose content the agent must not obtain (absolute, normalised), e.g. `/.eval`. */
  protectedRoots: readonly string[];
  /** URL prefixes of the upstream solution (any scheme; `host/path`), e.g. `github.com/org/repo/commit/abc`. */
  upstreamUrls: readonly string[];
  /** Hashes and ref names of commits after HEAD (the fix already in the history). */
  futureRevisions: readonly string[];
}

export interface RuleResult {
  flagged: boolean;
  /** Why, in one line: what reaches what when flagged; what was checked when not. */
  reason: string;
}

export interface MonitorRule {
  /** Kebab-case, stable: the decision log and the docs name rules by it. */
  readonly name: string;
  check(commands: readonly CommandFact[], ctx: RuleContext): RuleResult;
}

/** A flag as the decision log keeps it. */
export interface RuleFlag {
  rule: string;
  reason: string;
}
