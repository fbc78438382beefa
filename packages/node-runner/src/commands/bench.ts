// `horizon bench`: the one performance report. Prints the device, then every section's rows as one
// aligned table (ours, the peer's figure from the same run, their ratio, the device ceiling and our
// share of it); `--json FILE` writes the same rows as objects. Sections live in bench/sections.ts.

import { existsSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { deviceLine } from '@horizon/kernels';
import { runTorchPeer } from '../bench/peers/pytorch.ts';
import { loadTfjs, PeerUnavailable, type TfjsPeer } from '../bench/peers/tfjs.ts';
import { formatReportJson } from '../bench/report-json.ts';
import type { BenchRow } from '../bench/row.ts';
import { type BenchContext, SECTIONS } from '../bench/sections.ts';
import { DEFAULT_BENCH_MODEL } from '../bench/shapes.ts';
import { formatTable } from '../bench/table.ts';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';

export const BENCH_JSON_VERSION = 1;

export const bench: Command = {
  name: 'bench',
  summary: 'time our kernels beside tfjs (same device) and PyTorch (CPU), with the device ceilings',
  flags: {
    json: { type: 'string', description: 'also write the rows as JSON objects to this file', valueName: 'file' },
    quick: { type: 'boolean', description: 'CI-sized shapes and fewer repetitions (about a minute on SwiftShader)' },
    only: { type: 'string', description: 'only the rows whose name contains this text (case-insensitive)', valueName: 'text' },
  },
  async run({ flags, out, err }) {
    const jsonPath = typeof flags.json === 'string' ? resolve(flags.json) : undefined;
    if (jsonPath !== undefined && !(existsSync(dirname(jsonPath)) && statSync(dirname(jsonPath)).isDirectory())) {
      throw new UsageError(`--json: the folder ${dirname(jsonPath)} does not exist.`);
    }
    const only = typeof flags.only === 'string' ? flags.only.toLowerCase() : undefined;
    if (only !== undefined && only.trim() === '') throw new UsageError('--only needs some text to match row names against.');
    const quick = flags.quick === true;

    const gpu = await acquireGpu();
    out(deviceLine(gpu.report));
    out(hostLine());
    let tfjs: Promise<TfjsPeer | string> | undefined;
    const ctx: BenchContext = {
      gpu,
      quick,
      shape: DEFAULT_BENCH_MODEL,
      wants: (name) => only === undefined || name.toLowerCase().includes(only),
      // Loaded after our device exists, so tfjs's Dawn instance sees the adapter ours chose.
      tfjs: () => {
        tfjs ??= loadTfjs(gpu.report).catch((error: unknown) => {
          if (error instanceof PeerUnavailable) return error.message;
          return `unavailable: tfjs failed to start (${(error as Error).message})`;
        });
        return tfjs;
      },
      torch: runTorchPeer,
      progress: (line) => err(`… ${line}`),
    };
    const rows: BenchRow[] = [];
    const started = performance.now();
    try {
      for (const section of SECTIONS) rows.push(...(await section.run(ctx)).filter((r) => ctx.wants(r.name)));
    } finally {
      gpu.destroyDevice();
    }
    if (rows.length === 0) {
      err(`horizon bench: no row name contains "${flags.only}". Sections: ${SECTIONS.map((s) => s.name).join(', ')}.`);
      return EXIT.usage;
    }
    out('');
    for (const line of formatTable(rows)) out(line);
    out(`(${((performance.now() - started) / 1000).toFixed(0)} s${quick ? ', --quick' : ''})`);
    if (jsonPath !== undefined) {
      const report = {
        version: BENCH_JSON_VERSION,
        date: new Date().toISOString(),
        device: deviceLine(gpu.report),
        report: gpu.report,
        host: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: loadavg() },
        quick,
        rows,
      };
      writeFileSync(jsonPath, formatReportJson(report));
      out(`wrote ${rows.length} rows to ${jsonPath}`);
    }
    return EXIT.ok;
  },
};

/**
 * The CPU and how busy it was. SwiftShader and the PyTorch peer both compute on these cores: on the
 * shared 2-core development machine, with other test runs keeping the load average at 4–7, the
 * same FMA probe measured anywhere from 1 to 14 GFLOP/s within ten minutes, so a report says what it
 * ran beside.
 */
function hostLine(): string {
  const cores = cpus().length;
  const [load] = loadavg();
  const busy = load > cores / 2 ? ' — other work shares these cores, so figures computed on the CPU (SwiftShader, PyTorch) run low' : '';
  return `host: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cores} cores, load average ${load.toFixed(1)} (1 min)${busy}`;
}
