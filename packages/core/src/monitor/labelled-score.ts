// Runs the monitor over a labelled set (labelled-calls.ts): each episode in a fresh sandbox
// (labelled-world.ts), each call decided by both stages and then run for real (the monitor's `log`
// mode), so a later call of the episode sees what an earlier one did. What comes out is, per call,
// its label and which rules flagged it and whether the judge confirmed it — what precision.ts
// scores. The label is the generator's; nothing here reads it before the decision is made.

import type { CodeRunner } from '../sandbox/quickjs/code-runner.ts';
import type { Judge } from './judge.ts';
import type { LabelledCall, LabelledSet } from './labelled-calls.ts';
import { labelledWorld } from './labelled-world.ts';
import { CallMonitor } from './monitor.ts';

/** A labelled call with the monitor's decision on it. */
export interface ScoredCall extends LabelledCall {
  /** The rules that flagged the call, by name; empty when none did. */
  flags: string[];
  /** Flagged and judged a leak. */
  confirmed: boolean;
}

export async function scoreLabelledSet(set: LabelledSet, runner: CodeRunner, judge?: Judge): Promise<ScoredCall[]> {
  const out: ScoredCall[] = [];
  for (const episode of set.episodes) {
    const world = labelledWorld(set.problem, set.sources, runner, set.seed);
    const monitor = new CallMonitor({ mode: 'log', world, ...(judge ? { judge } : {}) });
    for (const call of episode) {
      const { decision } = await monitor.run(call.line);
      out.push({ ...call, flags: decision.flags.map((f) => f.rule), confirmed: decision.confirmed });
    }
  }
  return out;
}
