// `horizon experiment NAME` for an offline report (offline-report.ts): measure each seed not yet
// stored, storing it under docs/experiments/data/<name>/ the moment it is done (a stopped run
// loses only the seed in flight, and a rerun goes on from the next), then rewrite the page, its
// figure and the fidelity table. The first seed measured is the pilot: when the seeds still to go
// would take the run past its budget at that seed's pace, the runner stops there and says so. The
// page is rewritten after every seed, so a stopped run leaves a page that says it is incomplete.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '@horizon/core';
import { offlineMarkdown, offlineSvg } from './offline-page.ts';
import { OFFLINE_RESULT_FILE, type OfflineReport, type OfflineResult, readOfflineResult } from './offline-report.ts';
import type { ExperimentOptions } from './run-experiment.ts';

/** The experiment command's options that an offline report reads (it keeps no runs: no runsRoot). */
export interface OfflineOptions extends Pick<ExperimentOptions, 'docsDir' | 'budgetMinutes' | 'dryRun' | 'reportOnly' | 'command' | 'acquireGpu' | 'out'> {
  report: OfflineReport;
  /** Rewrites docs/experiments/README.md from every report's stored results. */
  writeTable(): Promise<void>;
  /** The clock, in milliseconds. */
  now?: () => number;
}

export async function runOfflineReport(options: OfflineOptions): Promise<number> {
  const { report, docsDir, out } = options;
  const say = (line: string) => out(`horizon experiment ${report.name}: ${line}`);
  const stored: OfflineResult = (await readOfflineResult(docsDir, report)) ?? { report: report.name, seeds: [] };
  const pending = report.seeds.filter((seed) => !stored.seeds.some((s) => s.seed === seed));
  if (options.dryRun) {
    out(
      `report ${report.name}: ${report.arms.length} arms trained offline on one log per seed; seeds ${report.seeds.join(', ')}; declared budget ${report.minutes} min`,
    );
    out(`pending: ${pending.length === 0 ? 'none' : `seeds ${pending.join(', ')}`}`);
    return 0;
  }
  if (options.reportOnly) {
    if (stored.seeds.length === 0)
      throw new InputError(
        'run',
        `report ${report.name} has no stored measurement in ${join(docsDir, 'data', report.name)}; run it without --report-only first.`,
      );
  } else if (pending.length > 0) {
    const now = options.now ?? Date.now;
    const budget = options.budgetMinutes ?? report.minutes;
    const started = now();
    const gpu = await options.acquireGpu();
    try {
      for (const [i, seed] of pending.entries()) {
        const start = now();
        const measured = await report.measure(gpu, seed);
        const seconds = (now() - start) / 1000;
        stored.seeds = [...stored.seeds, { seed, seconds, ...measured }].sort((a, b) => a.seed - b.seed);
        await store(docsDir, report, stored);
        await writeDocs(options, stored);
        say(`seed ${seed} measured in ${seconds.toFixed(0)} s and stored`);
        const left = pending.length - i - 1;
        const projected = (now() - started) / 60_000 + (left * seconds) / 60;
        if (i === 0 && left > 0 && projected > budget)
          throw new InputError(
            'run',
            `at seed ${seed}'s pace the ${left} seeds left would take the run to ${projected.toFixed(1)} min, over its budget of ${budget} min; seed ${seed} is stored, and a rerun with --budget MINUTES measures the rest.`,
          );
      }
    } finally {
      gpu.destroyDevice();
    }
  } else say(`all ${report.seeds.length} seeds are stored; rewriting the page from them`);
  if (options.reportOnly || pending.length === 0) await writeDocs(options, stored);
  say(`wrote ${join(docsDir, `${report.name}.md`)} and ${join(docsDir, 'README.md')}`);
  return 0;
}

async function store(docsDir: string, report: OfflineReport, result: OfflineResult): Promise<void> {
  const dir = join(docsDir, 'data', report.name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, OFFLINE_RESULT_FILE), `${JSON.stringify(result)}\n`);
}

async function writeDocs(options: OfflineOptions, result: OfflineResult): Promise<void> {
  const { report, docsDir } = options;
  await mkdir(docsDir, { recursive: true });
  const svgFile = `${report.name}.svg`;
  await writeFile(join(docsDir, svgFile), offlineSvg(report, result.seeds));
  const commands = [
    `${options.command}    # measures the seeds not stored yet, then writes this page`,
    `pnpm horizon experiment ${report.name} --report-only    # rewrites this page from docs/experiments/data/${report.name}/`,
  ];
  await writeFile(join(docsDir, `${report.name}.md`), offlineMarkdown(report, result.seeds, svgFile, commands));
  await options.writeTable();
}
