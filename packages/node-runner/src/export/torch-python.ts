// Runs one of the export's Python scripts (load_nanogpt.py, check_hf_gpt2.py) and parses the JSON
// it prints: the export tests load every export with PyTorch this way. Debian's /usr/bin/python3
// carries torch (python3-torch); a python3 earlier on PATH often does not, so that one is the default
// and HORIZON_PYTHON overrides it, as for the bench's PyTorch peer. HORIZON_HF_PYTHON names a Python
// that also has transformers (Debian packages none; see docs/export.md).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pythonPath } from '../bench/peers/pytorch.ts';

const TORCH_PROBE = 'import torch; from torch.nn import functional; torch.zeros(1)';

export const EXPORT_SCRIPTS = {
  nanogpt: fileURLToPath(new URL('./load_nanogpt.py', import.meta.url)),
  hf: fileURLToPath(new URL('./check_hf_gpt2.py', import.meta.url)),
} as const;

/**
 * Why `python` cannot run torch, or undefined when it can. The probe computes with it and imports
 * what the scripts import: a bare `import torch` also succeeds on a leftover `torch/` folder of a
 * removed package (Python takes it for a namespace package), as in the clean room.
 */
export function torchMissing(python: string = pythonPath()): string | undefined {
  const probe = spawnSync(python, ['-c', TORCH_PROBE], { encoding: 'utf8', timeout: 120_000 });
  if (probe.error) return `${python} cannot be run (${probe.error.message})`;
  return probe.status === 0 ? undefined : `${python} has no torch (install python3-torch)`;
}

/** Runs `python script ...args` and returns the JSON object it printed last; throws with its stderr when it fails. */
export function runPythonJson(script: string, args: readonly string[], python: string = pythonPath()): Record<string, unknown> {
  const run = spawnSync(python, [script, ...args], { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`${script} exited ${run.status}: ${run.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as Record<string, unknown>;
}

/** The largest |a − b| over two equally shaped nested lists of numbers. */
export function maxAbsDiff(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b);
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return Number.POSITIVE_INFINITY;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, maxAbsDiff(a[i], b[i]));
  return worst;
}
