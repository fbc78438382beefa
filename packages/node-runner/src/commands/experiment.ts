// `horizon experiment NAME`: run a declared comparison (experiment/reports/) — its arms × seeds,
// paired on one warm start per seed, resumable run by run — and write docs/experiments/<name>.md
// with its plot, verdicts and commands, plus the fidelity table docs/experiments/README.md.
// `--dry-run` prints the plan; `--report-only` rewrites the pages from stored results (no GPU);
// `--budget MINUTES` allows a pilot estimate above the report's declared budget.

import { resolve } from 'node:path';
import { type Command, UsageError } from '../cli/command.ts';
import { REPORT_NAMES, reportByName } from '../experiment/reports/index.ts';
import { runExperiment } from '../experiment/run-experiment.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';

export const experiment: Command = {
  name: 'experiment',
  summary: 'run a declared comparison (arms × seeds, paired, resumable) and write its report and the fidelity table',
  positionals: `<${REPORT_NAMES.join('|')}>`,
  flags: {
    budget: { type: 'string', description: 'minutes the pending runs may take when the pilot estimates more than the report declares', valueName: 'minutes' },
    'dry-run': { type: 'boolean', description: 'print the plan (runs done and pending, warm starts to train) and stop' },
    'report-only': { type: 'boolean', description: 'rewrite the report page and the fidelity table from stored results; run nothing' },
    runs: { type: 'string', description: 'where runs and cached warm starts go (default runs/experiments)', valueName: 'dir' },
    docs: { type: 'string', description: 'where the pages go (default docs/experiments)', valueName: 'dir' },
  },
  async run({ flags, positionals, out }) {
    const names = REPORT_NAMES.join(', ');
    if (positionals.length !== 1) throw new UsageError(`experiment takes one report name (${names}).`);
    const report = reportByName(positionals[0]);
    if (!report) throw new UsageError(`there is no report "${positionals[0]}"; the reports are ${names}.`);
    let budgetMinutes: number | undefined;
    if (flags.budget !== undefined) {
      budgetMinutes = Number(flags.budget);
      if (!(budgetMinutes > 0)) throw new UsageError(`--budget takes a positive number of minutes (got "${flags.budget}").`);
    }
    const command = ['pnpm horizon experiment', report.name, ...(budgetMinutes !== undefined ? [`--budget ${flags.budget}`] : [])].join(' ');
    return runExperiment({
      report,
      runsRoot: resolve((flags.runs as string | undefined) ?? 'runs/experiments'),
      docsDir: resolve((flags.docs as string | undefined) ?? 'docs/experiments'),
      ...(budgetMinutes !== undefined ? { budgetMinutes } : {}),
      dryRun: flags['dry-run'] === true,
      reportOnly: flags['report-only'] === true,
      command,
      acquireGpu,
      out,
    });
  },
};
