// `horizon experiment NAME` for a labelled-set report (labelled-set.ts): draw and score each seed's
// set — seconds on a CPU, so it is simply done again every time, unless `--report-only` asks for the
// page from the stored measurement — store the scored calls under docs/experiments/data/<name>/,
// then rewrite the page, its figure and the fidelity table (the training reports' rows come from
// their own stored results, as run-experiment.ts writes them).

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '@horizon/core';
import { LABELLED_RESULT_FILE, type LabelledSeed, type LabelledSetReport, type LabelledSetResult, readLabelledResult } from './labelled-set.ts';
import { labelledSetMarkdown, labelledSetSvg } from './labelled-set-page.ts';

export interface LabelledSetOptions {
  report: LabelledSetReport;
  docsDir: string;
  dryRun?: boolean;
  reportOnly?: boolean;
  command: string;
  out(line: string): void;
  /** Rewrites docs/experiments/README.md from every report's stored results. */
  writeTable(): Promise<void>;
  /** The clock, in milliseconds. */
  now?: () => number;
}

export async function runLabelledSet(options: LabelledSetOptions): Promise<number> {
  const { report, docsDir, out } = options;
  const say = (line: string) => out(`horizon experiment ${report.name}: ${line}`);
  if (options.dryRun) {
    out(`report ${report.name}: a labelled set scored on ${report.seeds.length} seeds (${report.seeds.join(', ')}); nothing is trained`);
    return 0;
  }
  let result: LabelledSetResult | undefined;
  if (options.reportOnly) {
    result = await readLabelledResult(docsDir, report);
    if (!result)
      throw new InputError(
        'run',
        `report ${report.name} has no stored measurement in ${join(docsDir, 'data', report.name)}; run it without --report-only first.`,
      );
  } else {
    const now = options.now ?? Date.now;
    const seeds: LabelledSeed[] = [];
    for (const seed of report.seeds) {
      const start = now();
      const scored = await report.measure(seed);
      seeds.push({ seed, scored, seconds: (now() - start) / 1000 });
      say(`seed ${seed}: ${scored.length} calls scored, ${scored.filter((c) => c.label === 'hack').length} of them hacks`);
    }
    result = { report: report.name, seeds };
    const dir = join(docsDir, 'data', report.name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, LABELLED_RESULT_FILE), `${JSON.stringify(result)}\n`);
  }
  const svgFile = `${report.name}.svg`;
  await writeFile(join(docsDir, svgFile), labelledSetSvg(report, result.seeds));
  const commands = [
    `${options.command}    # draws and scores every seed's set, then writes this page`,
    `pnpm horizon experiment ${report.name} --report-only    # rewrites this page from docs/experiments/data/${report.name}/`,
  ];
  await writeFile(join(docsDir, `${report.name}.md`), labelledSetMarkdown(report, result.seeds, svgFile, commands));
  await options.writeTable();
  say(`wrote ${join(docsDir, `${report.name}.md`)} and ${join(docsDir, 'README.md')}`);
  return 0;
}
