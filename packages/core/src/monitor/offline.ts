// The offline monitor: the same two stages over a saved trajectory's call records (the per-step
// `calls` a sample's info carries), for scoring the monitor against a labelled set after the fact.
// Each call is judged in the state the episode had when it ran: the calls are replayed in order in
// a fresh sandbox of the same episode (the environment rebuilds it from the seed), each decided
// before it runs, then run as it was run then — for real, or in the decoy where the recording says
// the guard fabricated it — so a later call sees the files an earlier one wrote. A replay whose
// exit status differs from the recorded one is reported, since its later judgements stand on a
// different state.

import type { JsonValue } from '../envs/environment.ts';
import { fabricatedCall } from './fabricate.ts';
import type { Judge } from './judge.ts';
import { CallMonitor, type MonitorDecision } from './monitor.ts';
import type { MonitorRule } from './rule.ts';
import type { MonitorWorld } from './world.ts';

/** What the offline monitor reads of one recorded call. */
export interface RecordedCall {
  line: string;
  exitCode: number;
  /** The decision made online, when a monitor ran then. */
  monitor?: MonitorDecision;
}

export interface OfflineDecision extends Omit<MonitorDecision, 'mode' | 'action'> {
  line: string;
  /** The replay's exit status matched the recording's. */
  replayed: boolean;
}

/** The call records of a sample's info (`meta.calls`), or a clear error when they are not there. */
export function recordedCalls(calls: JsonValue | undefined): RecordedCall[] {
  if (!Array.isArray(calls))
    throw new TypeError('offline monitor: the sample has no calls record (meta.calls); it was not made by a sandboxed shell environment');
  return calls.map((call, k) => {
    if (typeof call !== 'object' || call === null || Array.isArray(call) || typeof call.line !== 'string' || typeof call.exitCode !== 'number')
      throw new TypeError(`offline monitor: call ${k} of meta.calls has no line and exit code`);
    const recorded: RecordedCall = { line: call.line, exitCode: call.exitCode };
    if (typeof call.monitor === 'object' && call.monitor !== null) recorded.monitor = call.monitor as unknown as MonitorDecision;
    return recorded;
  });
}

/** Judges every call of a trajectory in `world`, a fresh sandbox of the same episode, which the replay advances. */
export async function monitorTrajectory(
  calls: readonly RecordedCall[],
  world: MonitorWorld,
  options: { rules?: readonly MonitorRule[]; judge?: Judge } = {},
): Promise<OfflineDecision[]> {
  const monitor = new CallMonitor({ mode: 'log', world, ...options });
  const out: OfflineDecision[] = [];
  for (const call of calls) {
    const decided = await monitor.decide(call.line);
    const ran = call.monitor?.action === 'fabricate' ? await fabricatedCall(world, call.line) : await world.shellOver(world.fs, 'live').run(call.line);
    out.push({ line: call.line, ...decided, replayed: ran.exitCode === call.exitCode });
  }
  return out;
}
