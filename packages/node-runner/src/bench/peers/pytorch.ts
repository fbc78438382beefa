// The CPU peer: PyTorch on this machine's cores, run as a subprocess (tools/bench/torch_peer.py) that
// reads one JSON request and answers with one JSON object. Debian's /usr/bin/python3 carries torch
// (python3-torch, with libopenblas0-pthread); a python3 earlier on PATH often does not, so that one
// is the default and HORIZON_PYTHON overrides it. Without python or torch the rows say so and the
// bench goes on. The subprocess runs while no GPU work is in flight (SwiftShader computes on the
// same cores), which the sections guarantee by awaiting their own work before calling it.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchModelShape, MatmulCase } from '../shapes.ts';
import type { TimingOptions } from '../timing.ts';

export interface TorchRequest {
  timing: TimingOptions;
  matmul: MatmulCase[];
  gptStep?: BenchModelShape;
  ppoStep?: BenchModelShape;
}

export interface TorchStep {
  ms: number;
  firstLoss: number;
}

export interface TorchResult {
  /** e.g. "pytorch 1.13.0 cpu (torch 1 thread, OpenBLAS 0.3.21 2 threads)": torch's OpenMP threads and the BLAS's own. */
  name: string;
  /** GFLOP/s per requested case, in request order. */
  matmulGflops: number[];
  gptStep: TorchStep | null;
  ppoStep: TorchStep | null;
}

export type TorchOutcome = TorchResult | { unavailable: string };

/** The twin script; HORIZON_TORCH_PEER points elsewhere (a bundled bench on a GPU machine carries its own copy). */
const SCRIPT = process.env.HORIZON_TORCH_PEER ?? fileURLToPath(new URL('../../../../../tools/bench/torch_peer.py', import.meta.url));
/** 'cpu' (default), or 'cuda' on a GPU machine: eager PyTorch on the same GPU as ours. */
const DEVICE = process.env.HORIZON_TORCH_DEVICE === 'cuda' ? 'cuda' : 'cpu';
const INSTALL = 'install python3-torch (bash scripts/setup.sh --bench)';
/** 2048³ in three layouts plus both steps take under a minute at ~100 GFLOP/s; this only catches a hang. */
const TIMEOUT_MS = 15 * 60_000;

export function pythonPath(): string {
  return process.env.HORIZON_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
}

export async function runTorchPeer(request: TorchRequest): Promise<TorchOutcome> {
  const payload = JSON.stringify({
    threads: null,
    device: DEVICE,
    timing: { warmup: request.timing.warmup, reps: request.timing.reps, budget_ms: request.timing.budgetMs ?? Number.MAX_VALUE },
    matmul: request.matmul.map(({ M, K, N, layout }) => ({ M, K, N, layout })),
    gpt_step: request.gptStep ?? null,
    ppo_step: request.ppoStep ?? null,
  });
  const run = await spawnJson(pythonPath(), [SCRIPT], payload);
  if ('unavailable' in run) return run;
  const r = run.json as {
    unavailable?: string;
    torch: string;
    device: string;
    threads: number;
    blas: { name: string; threads: number } | null;
    matmul: Array<{ gflops: number }>;
    gpt_step: { ms: number; first_loss: number } | null;
    ppo_step: { ms: number; first_loss: number } | null;
  };
  if (r.unavailable) return { unavailable: r.unavailable };
  const step = (s: { ms: number; first_loss: number } | null) => (s ? { ms: s.ms, firstLoss: s.first_loss } : null);
  return {
    name:
      r.device === 'cpu'
        ? `pytorch ${r.torch} cpu (${threads('torch', r.threads)}${r.blas ? `, ${threads(`OpenBLAS ${r.blas.name}`, r.blas.threads)}` : ''})`
        : `pytorch ${r.torch} ${r.device} (eager)`,
    matmulGflops: r.matmul.map((m) => m.gflops),
    gptStep: step(r.gpt_step),
    ppoStep: step(r.ppo_step),
  };
}

function threads(who: string, n: number): string {
  return `${who} ${n} thread${n === 1 ? '' : 's'}`;
}

function spawnJson(command: string, args: string[], input: string): Promise<{ json: unknown } | { unavailable: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolve({
        unavailable: error.code === 'ENOENT' ? `unavailable: no ${command}; ${INSTALL}` : `unavailable: ${command} failed to start (${error.message})`,
      });
    });
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const last = stderr.trim().split('\n').at(-1) ?? '';
        resolve({ unavailable: `unavailable: the PyTorch peer exited with ${signal ?? `code ${code}`}${last ? `: ${last}` : ''}` });
        return;
      }
      try {
        resolve({ json: JSON.parse(stdout) });
      } catch {
        resolve({ unavailable: `unavailable: the PyTorch peer printed no JSON (${stdout.slice(0, 80)})` });
      }
    });
    // A child that failed to start closes its stdin under us (EPIPE); 'error' above already reported it.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
