// `horizon experiment NAME` from start to finish: plan the report's runs, skip the finished ones,
// time a pilot and refuse to go over budget, run what is left seed by seed (each seed's warm start
// trained once and shared by its arms), and after every run rewrite the report's page, its plot and
// the fidelity table. Each finished run's result is also copied to docs/experiments/data/<name>/,
// so the page can be regenerated from a clone without the runs (`--report-only`).

import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { budgetRefusal, estimate } from './budget.ts';
import { type FidelityRow, fidelityMarkdown, type LabelledSetRow, type OfflineRow } from './fidelity.ts';
import { isLabelledSet, type LabelledSetReport, labelledVerdict, readLabelledResult, seedScores } from './labelled-set.ts';
import { compare, reportMarkdown } from './markdown.ts';
import { isOffline, type OfflineReport, offlineOutcomes, readOfflineResult } from './offline-report.ts';
import { pilot } from './pilot.ts';
import { type PlannedRun, planRuns, sftCacheDir, unrunnableReason } from './plan.ts';
import type { Report } from './report.ts';
import { LABELLED_SET_REPORTS, OFFLINE_REPORTS, REPORTS } from './reports/index.ts';
import { RESULT_FILE, type RunResult, readResult, runState } from './results.ts';
import { runArm } from './run-arm.ts';
import { runLabelledSet } from './run-labelled-set.ts';
import { runOfflineReport } from './run-offline-report.ts';
import { plotSvg } from './svg.ts';
import { withTrainingMeans } from './training-means.ts';
import { warmStart } from './warm-start.ts';

export interface ExperimentOptions {
  /** A training report (arms × seeds), an offline report (offline-report.ts), or a labelled-set report, which trains nothing (labelled-set.ts). */
  report: Report | OfflineReport | LabelledSetReport;
  /** runs/experiments: runs and cached warm starts. */
  runsRoot: string;
  /** docs/experiments: pages, plots, the fidelity table, the results' copies. */
  docsDir: string;
  budgetMinutes?: number;
  dryRun?: boolean;
  reportOnly?: boolean;
  /** The command line that runs the report, for its page. */
  command: string;
  acquireGpu(): Promise<Gpu>;
  out(line: string): void;
}

const dataDir = (docsDir: string, report: Report, run: PlannedRun) => join(docsDir, 'data', report.name, run.arm.name);

/** A run's result, from the runs directory or else the docs copy, if it matches the planned key. */
async function storedResult(docsDir: string, report: Report, run: PlannedRun): Promise<RunResult | undefined> {
  const fromRun = await readResult(run.dir);
  if (fromRun?.key === run.key) return fromRun;
  const copy = await readResult(join(dataDir(docsDir, report, run), String(run.seed))).catch(() => undefined);
  return copy?.key === run.key ? copy : undefined;
}

async function copyResult(docsDir: string, report: Report, run: PlannedRun): Promise<void> {
  // A run finished before its report named a training metric gets it from its log first.
  const result = await readResult(run.dir);
  if (result?.key === run.key) await withTrainingMeans(report, run.dir, result);
  const dir = join(dataDir(docsDir, report, run), String(run.seed));
  await mkdir(dir, { recursive: true });
  await copyFile(join(run.dir, RESULT_FILE), join(dir, RESULT_FILE));
}

/** The options of a training report's run. */
type TrainingOptions = ExperimentOptions & { report: Report };

export async function runExperiment(experiment: ExperimentOptions): Promise<number> {
  const declared = experiment.report;
  if (isLabelledSet(declared)) return runLabelledSet({ ...experiment, report: declared, writeTable: () => writeTable(experiment) });
  if (isOffline(declared)) return runOfflineReport({ ...experiment, report: declared, writeTable: () => writeTable(experiment) });
  const options: TrainingOptions = { ...experiment, report: declared };
  const { report, runsRoot, docsDir, out } = options;
  const say = (line: string) => out(`horizon experiment ${report.name}: ${line}`);
  const blocked = unrunnableReason(report);
  if (blocked && !options.reportOnly) throw new InputError('run', `report ${report.name} cannot run on this version: ${blocked}.`);
  const runs = blocked ? [] : planRuns(report, runsRoot);
  if (runs.length !== report.budget.runs && !blocked)
    throw new InputError('run', `report ${report.name} declares ${report.budget.runs} runs but its arms × seeds make ${runs.length}; fix its budget.`);

  const states = await Promise.all(runs.map((run) => runState(run.dir, run.key)));
  const pending = runs.filter((_, i) => states[i] !== 'done');
  const warmNeeded = new Map<string, PlannedRun>();
  for (const run of pending) if (!warmNeeded.has(run.sftKey)) warmNeeded.set(run.sftKey, run);
  const uncached: PlannedRun[] = [];
  for (const run of warmNeeded.values()) if ((await new DirectoryCheckpointStore(sftCacheDir(runsRoot, run.sftKey)).list()).length === 0) uncached.push(run);

  if (options.dryRun || options.reportOnly) {
    out(`report ${report.name}: ${report.arms.length} arms × ${report.seeds.length} seeds = ${runs.length} runs; declared budget ${report.budget.minutes} min`);
    for (const [i, run] of runs.entries()) out(`  ${run.arm.name.padEnd(14)} seed ${run.seed}  ${states[i]}  ${run.dir}`);
    for (const run of uncached)
      out(`  warm start for seed ${run.seed} (${run.warmRecipe.sft.steps} SFT steps): to train, cached in ${sftCacheDir(runsRoot, run.sftKey)}`);
    if (options.dryRun) {
      out(`pending: ${pending.length} runs, ${uncached.length} warm starts; a pilot times them before anything runs`);
      return 0;
    }
    await writeDocs(options, runs);
    say(`page and fidelity table rewritten from the stored results`);
    return 0;
  }
  if (pending.length === 0) {
    say(`all ${runs.length} runs are done; rewriting the page from their results`);
    for (const run of runs) await copyResult(docsDir, report, run);
    await writeDocs(options, runs);
    return 0;
  }

  const gpu = await options.acquireGpu();
  try {
    // The pilot times the arms from the first pending run's warm start, trained now if it is not
    // cached (the runs need it anyway): from fresh weights the estimate errs long (pilot.ts).
    const first = pending[0];
    if (uncached.some((run) => run.sftKey === first.sftKey)) say(`training seed ${first.seed}'s warm start first, for the pilot to start from`);
    const firstWarm = await warmStart(gpu, first.warmRecipe, sftCacheDir(runsRoot, first.sftKey), say);
    say(
      `${runs.length - pending.length} of ${runs.length} runs already done; timing a pilot of ${new Set(pending.map((r) => r.arm.name)).size} arms from the warm start`,
    );
    const timings = await pilot(gpu, pending, firstWarm);
    const stillUncached = uncached.filter((run) => run.sftKey !== first.sftKey);
    const cost = estimate(pending, stillUncached, timings, (report.probes?.length ?? 0) > 0);
    for (const line of cost.lines) out(`  ${line}`);
    const refusal = budgetRefusal(cost.minutes, report.budget.minutes, options.budgetMinutes);
    if (refusal) throw new InputError('run', refusal);
    say(
      `estimated ${cost.minutes.toFixed(1)} min for ${pending.length} runs (declared budget ${report.budget.minutes} min${options.budgetMinutes !== undefined ? `, --budget ${options.budgetMinutes}` : ''})`,
    );

    for (const [i, run] of runs.entries()) {
      if (states[i] === 'done') {
        await copyResult(docsDir, report, run);
        continue;
      }
      if (states[i] !== 'missing')
        say(
          `${run.arm.name} seed ${run.seed}: ${states[i] === 'stale' ? 'its result is from an older declaration' : 'stopped midway earlier'}; restarting it from the warm start`,
        );
      const warm = await warmStart(gpu, run.warmRecipe, sftCacheDir(runsRoot, run.sftKey), say);
      const result = await runArm(gpu, report, run, warm);
      await copyResult(docsDir, report, run);
      say(
        `${run.arm.name} seed ${run.seed}: held-out ${(100 * (result.curve[0]?.heldOut ?? Number.NaN)).toFixed(1)}% → ${(100 * result.final.heldOut).toFixed(1)}% in ${result.seconds.toFixed(0)} s`,
      );
      await writeDocs(options, runs);
    }
  } finally {
    gpu.destroyDevice();
  }
  await writeDocs(options, runs);
  say(`done; wrote ${join(docsDir, `${report.name}.md`)} and ${join(docsDir, 'README.md')}`);
  return 0;
}

/** Results of a report's planned runs that exist, by arm (in seed order). */
async function collect(docsDir: string, report: Report, runs: readonly PlannedRun[]): Promise<Map<string, RunResult[]>> {
  const results = new Map<string, RunResult[]>(report.arms.map((a) => [a.name, []]));
  for (const run of runs) {
    const result = await storedResult(docsDir, report, run);
    if (result) results.get(run.arm.name)?.push(result);
  }
  return results;
}

/** Rewrites the report's page and plot (if it has results) and the fidelity table. */
async function writeDocs(options: TrainingOptions, runs: readonly PlannedRun[]): Promise<void> {
  const { report, docsDir } = options;
  await mkdir(docsDir, { recursive: true });
  const results = await collect(docsDir, report, runs);
  const finished = [...results.values()].reduce((a, r) => a + r.length, 0);
  if (finished > 0) {
    const svgFile = `${report.name}.svg`;
    await writeFile(
      join(docsDir, svgFile),
      plotSvg(
        report.name,
        report.arms.map((arm) => ({ name: arm.name, runs: results.get(arm.name) ?? [] })),
      ),
    );
    const first = runs[0];
    await writeFile(
      join(docsDir, `${report.name}.md`),
      reportMarkdown({
        report,
        results,
        planned: runs.length,
        finished,
        svgFile,
        commands: [
          `${options.command}    # runs what is missing (finished runs are skipped), then writes this page`,
          `pnpm horizon experiment ${report.name} --report-only    # rewrites this page from docs/experiments/data/${report.name}/`,
        ],
        armSets: new Map(report.arms.map((arm) => [arm.name, [...report.common, ...arm.sets]])),
        iterations: mostCommon(runs.map((r) => r.recipe.rl.iterations)) ?? 0,
        armIterations: new Map(runs.map((r) => [r.arm.name, r.recipe.rl.iterations])),
        warmStartSteps: first?.recipe.sft.steps ?? 0,
      }),
    );
  }
  await writeTable(options);
}

async function writeTable(options: ExperimentOptions): Promise<void> {
  await mkdir(options.docsDir, { recursive: true });
  await writeFile(join(options.docsDir, 'README.md'), fidelityMarkdown(await fidelityRows(options)));
}

function mostCommon(values: readonly number[]): number | undefined {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

async function fidelityRows(options: ExperimentOptions): Promise<(FidelityRow | OfflineRow | LabelledSetRow)[]> {
  const rows: (FidelityRow | OfflineRow | LabelledSetRow)[] = [];
  const pages = new Set(await readdir(options.docsDir).catch(() => [] as string[]));
  for (const report of REPORTS) {
    if (!report.fidelity) continue;
    const hasPage = pages.has(`${report.name}.md`);
    const unrunnable = unrunnableReason(report);
    if (unrunnable) {
      rows.push({ report, unrunnable, planned: 0, finished: 0, hasPage });
      continue;
    }
    const runs = planRuns(report, options.runsRoot);
    const results = await collect(options.docsDir, report, runs);
    const finished = [...results.values()].reduce((a, r) => a + r.length, 0);
    rows.push({ report, outcomes: compare(report, results), planned: runs.length, finished, hasPage });
  }
  for (const report of OFFLINE_REPORTS) {
    const stored = await readOfflineResult(options.docsDir, report);
    const seeds = stored?.seeds.filter((s) => report.seeds.includes(s.seed)) ?? [];
    rows.push({ report, outcomes: seeds.length > 0 ? offlineOutcomes(report, seeds) : [], seeds: seeds.length, hasPage: pages.has(`${report.name}.md`) });
  }
  for (const report of LABELLED_SET_REPORTS) {
    const stored = await readLabelledResult(options.docsDir, report);
    const outcome = stored ? { verdict: labelledVerdict(stored.seeds.map((s) => seedScores(report, s))), seeds: stored.seeds.length } : undefined;
    rows.push({ report, ...(outcome ? { outcome } : {}), hasPage: pages.has(`${report.name}.md`) });
  }
  return rows;
}
