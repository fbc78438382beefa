// The online anti-hack monitor: every tool call passes through it before it runs —
//   tool call → rule stage (recall) → judge stage (precision) → real or fabricated output → env.
// The rules (path-rules.ts, source-rules.ts) read the parsed line; a call no rule flags runs as it
// is, unjudged. A flagged call goes to the judge (judge.ts), whose leak verdict confirms the hack.
// Modes: `off` (no monitor: the environment never builds one), `log` (decide and record, then run
// the real call: the monitor is measured without touching training), `guard` (a confirmed hack gets
// the decoy's fabricated output, fabricate.ts, and the rollout continues). The decision — which
// rules flagged and why, the judge's verdict, the action — is returned for the step's info. The
// reward penalty of a guarded episode with a confirmed hack is the environment's to add (HiddenTestFS:
// envs/hidden-test-fs/grading.ts). What the monitor leaves out is listed in docs/monitor.md.

import type { ShellCallResult } from '../sandbox/shell/shell.ts';
import { commandFacts } from './command-facts.ts';
import { fabricatedCall } from './fabricate.ts';
import { type Judge, ShadowJudge } from './judge.ts';
import { PATH_RULES } from './path-rules.ts';
import type { MonitorRule, RuleFlag } from './rule.ts';
import { SOURCE_RULES } from './source-rules.ts';
import { type MonitorWorld, ruleContext } from './world.ts';

export const MONITOR_MODES = ['off', 'log', 'guard'] as const;
export type MonitorMode = (typeof MONITOR_MODES)[number];

/** The recipe's monitor settings (task.hiddenTestFs.monitor). */
export interface MonitorConfig {
  mode: MonitorMode;
  /** Added to the reward of a guarded episode with a confirmed hack (≤ 0; 0: none). */
  penalty: number;
}

export const MONITOR_OFF: MonitorConfig = { mode: 'off', penalty: 0 };

/** Every rule, in the order the decision log lists their flags. */
export const DEFAULT_RULES: readonly MonitorRule[] = [...PATH_RULES, ...SOURCE_RULES];

/** What the monitor decided about one call. JSON-shaped: it goes into the step's info as it is. */
export interface MonitorDecision {
  mode: Exclude<MonitorMode, 'off'>;
  /** The rules that flagged the call; empty when none did (then it was not judged). */
  flags: RuleFlag[];
  /** The judge's verdict on a flagged call; null when no rule flagged it. */
  verdict: { judge: string; leak: boolean; reason: string } | null;
  /** Flagged and judged a leak: a confirmed hack, whatever the mode did about it. */
  confirmed: boolean;
  /** What the agent got: the real call's output, or the decoy's. */
  action: 'allow' | 'fabricate';
}

export interface CallMonitorOptions {
  mode: Exclude<MonitorMode, 'off'>;
  world: MonitorWorld;
  rules?: readonly MonitorRule[];
  judge?: Judge;
}

export class CallMonitor {
  readonly mode: Exclude<MonitorMode, 'off'>;
  readonly world: MonitorWorld;
  private readonly rules: readonly MonitorRule[];
  private readonly judge: Judge;

  constructor(options: CallMonitorOptions) {
    this.mode = options.mode;
    this.world = options.world;
    this.rules = options.rules ?? DEFAULT_RULES;
    this.judge = options.judge ?? new ShadowJudge();
  }

  /** The rule stage: which rules flag `line` in the sandbox's current state. A line the shell cannot parse reaches nothing. */
  flag(line: string): RuleFlag[] {
    const facts = commandFacts(line, this.world.fs.cwd);
    if (!facts.ok) return [];
    const ctx = ruleContext(this.world);
    return this.rules.flatMap((rule) => {
      const result = rule.check(facts.commands, ctx);
      return result.flagged ? [{ rule: rule.name, reason: result.reason }] : [];
    });
  }

  /** Both stages, without running the call: what guard mode would do with it now. */
  async decide(line: string): Promise<Omit<MonitorDecision, 'action' | 'mode'>> {
    const flags = this.flag(line);
    if (flags.length === 0) return { flags, verdict: null, confirmed: false };
    const verdict = await this.judge.judge({ line, flags, world: this.world });
    return { flags, verdict: { judge: this.judge.name, ...verdict }, confirmed: verdict.leak };
  }

  /** Decides, then runs the call for real or, for a confirmed hack in guard mode, in the decoy. */
  async run(line: string): Promise<{ result: ShellCallResult; decision: MonitorDecision }> {
    const decided = await this.decide(line);
    const fabricate = this.mode === 'guard' && decided.confirmed;
    const result = fabricate ? await fabricatedCall(this.world, line) : await this.world.shellOver(this.world.fs, 'live').run(line);
    return { result, decision: { mode: this.mode, ...decided, action: fabricate ? 'fabricate' : 'allow' } };
  }
}
