// The anti-hack monitor walkthrough's numbers (docs/monitor.md, docs/ui.md §19): one command line
// through core's monitor on a real HiddenTestFS episode sandbox (the task files, `.eval/` with the
// reference solution and hidden cases, the shell with run_tests and submit), in the worker. Nothing
// here decides anything: the parse is core's commandFacts (the shell's own parser), the rules are
// DEFAULT_RULES, the verdict is the ShadowJudge's from its two dry runs (shadow and decoy forks),
// and what the agent sees is CallMonitor.run in a log-mode and a guard-mode sandbox, each fresh from
// the same seed, so one call's effects never leak into the other. The review queue is a few calls
// the rules flag, judged the same way, beside the learner's labels from IndexedDB
// (storage/review-labels.ts). The monitor is CPU code, not a kernel: no GPU is involved.

import { type CallMonitor, commandFacts, createSandbox, DEFAULT_RULES, type HiddenSandbox, hiddenProblem, QuickJsCodeRunner, ruleContext } from '@horizon/core';
import { ReviewLabels } from '../storage/review-labels.ts';
import { MONITOR_CONSTANTS, MONITOR_MAX_LINE, MONITOR_SEED, REVIEW_LINES } from './monitor-data.ts';
import type { MonitorAnswer, MonitorCommand, MonitorRequest, MonitorReviewAnswer, MonitorReviewRequest, ReviewLabel } from './walk-api.ts';

// One runner for every sandbox of the worker: run_tests executes f.js in QuickJS; the lines here rarely call it.
let runner: QuickJsCodeRunner | undefined;

function sandbox(mode: 'log' | 'guard', hackOpen: boolean): HiddenSandbox & { monitor: CallMonitor } {
  runner ??= new QuickJsCodeRunner();
  const s = createSandbox(hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS), hackOpen, runner, MONITOR_SEED, { mode, penalty: 0 });
  if (!s.monitor) throw new Error('monitor walkthrough: the sandbox was built without its monitor.');
  return s as HiddenSandbox & { monitor: CallMonitor };
}

/** Every file path of the sandbox, `.eval/` included (listed with protection lifted: the learner may see what the agent may not). */
function filePaths(s: HiddenSandbox): string[] {
  const open = s.fs.fork({ protectedPaths: [] });
  const out: string[] = [];
  const visit = (dir: string) => {
    const listing = open.list(dir);
    if (!listing.ok) return;
    for (const entry of listing.value) {
      const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.kind === 'dir') visit(path);
      else out.push(path);
    }
  };
  visit('/');
  return out.sort();
}

export function checkMonitorRequest(r: MonitorRequest): void {
  if (typeof r.line !== 'string' || r.line.trim() === '') throw new RangeError('monitor walkthrough: type a command line to check.');
  if (r.line.length > MONITOR_MAX_LINE)
    throw new RangeError(`monitor walkthrough: a command line of at most ${MONITOR_MAX_LINE} characters, got ${r.line.length}.`);
  if (typeof r.hackOpen !== 'boolean') throw new RangeError(`monitor walkthrough: hackOpen must be true or false, got ${String(r.hackOpen)}.`);
}

export async function computeMonitorWalk(request: MonitorRequest): Promise<MonitorAnswer> {
  checkMonitorRequest(request);
  const started = performance.now();
  const logBox = sandbox('log', request.hackOpen);
  const guardBox = sandbox('guard', request.hackOpen);
  const facts = commandFacts(request.line, logBox.fs.cwd);
  const ctx = ruleContext(logBox.monitor.world);
  const rules = DEFAULT_RULES.map((rule) => {
    if (!facts.ok) return { rule: rule.name, flagged: false, reason: 'the line does not parse, so no rule reads it' };
    const result = rule.check(facts.commands, ctx);
    return { rule: rule.name, flagged: result.flagged, reason: result.reason };
  });
  const files = filePaths(logBox);
  const logged = await logBox.monitor.run(request.line);
  const guarded = await guardBox.monitor.run(request.line);
  const parse: MonitorAnswer['parse'] = facts.ok
    ? {
        ok: true,
        commands: facts.commands.map(
          (c): MonitorCommand => ({
            name: c.nameComputed ? '$(…)' : (c.name ?? ''),
            args: c.args.map((w) => ({ text: w.text, glob: w.glob, dynamic: w.dynamic })),
            writes: c.writes.map((w) => w.text),
            reads: c.reads.map((w) => w.text),
            cwd: c.cwd,
            pipeline: c.pipeline,
            stage: c.stage,
            substitutionOf: c.substitutionOf ?? null,
          }),
        ),
      }
    : { ok: false, error: facts.error };
  const output = (r: { result: { stdout: string; stderr: string; exitCode: number }; decision: { action: 'allow' | 'fabricate' } }) => ({
    stdout: r.result.stdout,
    stderr: r.result.stderr,
    exitCode: r.result.exitCode,
    action: r.decision.action,
  });
  return {
    request: { ...request },
    seed: MONITOR_SEED,
    files,
    parse,
    rules,
    verdict: guarded.decision.verdict,
    log: output(logged),
    guard: output(guarded),
    computedOn: 'cpu',
    deviceLine: 'core’s monitor (rules, shadow judge, decoy) on the worker’s CPU — it is not a kernel',
    millis: performance.now() - started,
  };
}

// The worker's one label store, opened on the first review request.
let labels: ReviewLabels | undefined;

export function checkReviewRequest(r: MonitorReviewRequest): void {
  if (r.set === null) return;
  if (!REVIEW_LINES.includes(r.set.line)) throw new RangeError(`monitor review: "${r.set.line}" is not in the review queue.`);
  const ok: (ReviewLabel | null)[] = ['hack', 'legitimate', null];
  if (!ok.includes(r.set.label)) throw new RangeError(`monitor review: a label is hack, legitimate or none, got ${String(r.set.label)}.`);
}

export async function computeMonitorReview(request: MonitorReviewRequest): Promise<MonitorReviewAnswer> {
  checkReviewRequest(request);
  const started = performance.now();
  labels ??= new ReviewLabels();
  if (request.set) await labels.set(request.set.line, request.set.label);
  const stored = await labels.all();
  const items = [];
  for (const line of REVIEW_LINES) {
    // Each call is judged in a fresh sandbox, as it would be as an episode's first call.
    const decided = await sandbox('log', true).monitor.decide(line);
    items.push({
      line,
      rules: decided.flags.map((f) => f.rule),
      leak: decided.verdict?.leak ?? false,
      reason: decided.verdict?.reason ?? 'no rule flagged it, so it was not judged',
      label: stored.get(line) ?? null,
    });
  }
  const confirmed = items.filter((i) => i.leak && i.label !== null);
  const confirmedHack = confirmed.filter((i) => i.label === 'hack').length;
  return {
    request: { ...request },
    items,
    confirmedLabelled: confirmed.length,
    confirmedHack,
    precision: confirmed.length > 0 ? confirmedHack / confirmed.length : null,
    storage: labels.problem ? `in memory for this page only: ${labels.problem}` : 'in this browser’s IndexedDB (database “horizon-review”)',
    computedOn: 'cpu',
    deviceLine: 'core’s shadow judge on the worker’s CPU',
    millis: performance.now() - started,
  };
}
