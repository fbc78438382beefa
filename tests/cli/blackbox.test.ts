// Black-box training through the real CLI: the default recipe's warm start (SFT, then one PPO iteration with
// log.allSamples, whose samples.jsonl holds the whole batch and exports without the subsample
// warning), then `horizon serve --train` on it, driven by tests/cli/blackbox-agent.mjs — a plain
// `openai` client in a child Node process, no Horizon code — as the agent on addition: it samples
// training prompts, scores its own answers, posts rewards, and measures greedy success on a fixed
// held-out set through the server before and after. Every update must reach the served weights and
// held-out success must rise (numbers below);
// the server refuses what training mode cannot take (n > 1 on a recorded request, a second reward, an
// unknown session), and SIGTERM writes the last checkpoint and exits 0.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const agent = join(root, 'tests', 'cli', 'blackbox-agent.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-blackbox-cli-'));
const warm = join(scratch, 'warm');
const trained = join(scratch, 'blackbox');
/** add-ppo-fast's method (PPO with a critic) and batch: 128 sessions of one rollout each per update. */
const SESSIONS = 128;
/** The first four are critic-only (rl.criticWarmupSteps = 5, the warm start's iteration the first). */
const ITERATIONS = 30;
/** The agent's seed: the training prompts it draws (its 100 held-out problems are fixed). */
const AGENT_SEED = 11;
/**
 * Held-out greedy success (100 problems) after the agent's 30 updates, against before, measured on
 * SwiftShader from this warm start (0.27) with tools/experiments/blackbox-run.sh: agent seeds 11, 12,
 * 13 → 0.34, 0.41, 0.34; after 60 updates, seeds 1, 2, 3 → 0.39, 0.40, 0.46 (docs/experiments.md,
 * 2026-12-03). Three points is three problems. From the tiny preset's weaker warm start 15 updates
 * gave no reliable lift, nor did in-process PPO (docs/experiments.md, 2026-12-02).
 */
const LEAST_GAIN = 0.03;
let server: ChildProcess | undefined;
let base = '';
let model = '';

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

beforeAll(async () => {
  const sets = ['rl.iterations=1', 'eval.heldOutSize=16', 'eval.oodSize=4', 'checkpoint.interval=1', 'log.allSamples=true'];
  const r = spawnSync(tsx, [main, 'train', '--quiet', '--recipe', 'add-ppo-fast', ...sets.flatMap((set) => ['--set', set]), '--out', warm], {
    cwd: root,
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect(r.status, r.stderr).toBe(0);
  server = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--train', '--checkpoint', warm, '--port', '0', '--out', trained], { cwd: root });
  const output: string[] = [];
  base = await new Promise<string>((resolve, reject) => {
    server?.stdout?.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output.join(''));
      if (m) resolve(m[1]);
    });
    server?.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    server?.on('exit', (code) => reject(new Error(`horizon serve --train exited ${code}: ${output.join('')}`)));
  });
  model = ((await (await fetch(`${base}/models`)).json()) as { data: { id: string }[] }).data[0].id;
}, 300_000);

const post = (path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a run with log.allSamples', () => {
  it('logs every rollout of its RL iteration, and exports them all without the subsample warning', () => {
    const lines = readFileSync(join(warm, 'samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { phase: string });
    expect(lines.filter((l) => l.phase === 'rl')).toHaveLength(SESSIONS);
    const out = join(scratch, 'rl.jsonl');
    const r = spawnSync(tsx, [main, 'export', '--run', warm, '--dataset', 'trl-prompt-completion', '--out', out], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(SESSIONS);
  });
});

describe('horizon serve --train', () => {
  it('trains on an outside agent’s rewarded sessions: every update reaches the served policy, held-out success rises', () => {
    const r = spawnSync(process.execPath, [agent, base, model, String(ITERATIONS), String(SESSIONS), '1', String(AGENT_SEED), '1'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
      before: number;
      after: number;
      changed: number;
      updates: { iteration: number; policy_version: number; samples: number }[];
    };
    expect(result.updates.map((u) => u.policy_version)).toEqual(Array.from({ length: ITERATIONS }, (_, i) => i + 1));
    expect(result.updates.every((u) => u.samples === SESSIONS)).toBe(true);
    // The updates reached the served weights: some held-out greedy answers changed.
    expect(result.changed, `held-out success ${result.before} → ${result.after}`).toBeGreaterThan(0);
    expect(result.after - result.before, `held-out success ${result.before} → ${result.after}`).toBeGreaterThanOrEqual(LEAST_GAIN);
  }, 600_000);

  it('refuses n > 1 on a recorded request, a reward for an unknown session, and a second reward', async () => {
    const many = await post('/completions', { model, prompt: '1+2=', max_tokens: 4, temperature: 1, n: 2 });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { error: { param: string } }).error.param).toBe('n');
    expect((await post('/horizon/rewards', { session_id: 'nobody', reward: 1 })).status).toBe(404);
    const one = (await (await post('/completions', { model, prompt: '1+2=', max_tokens: 4, temperature: 1, horizon: { session_id: 'probe' } })).json()) as {
      horizon: { recorded: boolean; drift: boolean };
    };
    expect(one.horizon).toMatchObject({ recorded: true, drift: false });
    const greedy = (await (await post('/completions', { model, prompt: '1+2=', max_tokens: 4, temperature: 0 })).json()) as { horizon: { recorded: boolean } };
    expect(greedy.horizon.recorded).toBe(false);
    // After the agent's updates: a group of one waits for 127 more, so no update runs here.
    expect((await post('/horizon/rewards', { session_id: 'probe', reward: 0, group: 'probe' })).status).toBe(200);
    expect((await post('/horizon/rewards', { session_id: 'probe', reward: 1 })).status).toBe(400);
  });

  it('stops on SIGTERM with exit 0, leaving a checkpoint of the last update and every trained sample', async () => {
    const exited = new Promise<number | null>((resolve) => server?.once('exit', resolve));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = undefined;
    expect(readdirSync(join(trained, 'checkpoints'))).toContain(`step-${1 + ITERATIONS}`);
    const lines = readFileSync(join(trained, 'samples.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(SESSIONS * ITERATIONS);
  });
});
