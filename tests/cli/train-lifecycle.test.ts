// The life of a `horizon train` run through the real CLI (docs/reliability.md §5–§6, the global
// step and the divergence stop): a refused resume changes nothing; one process per run directory; Ctrl-C and
// SIGTERM save a checkpoint (in SFT too) and resume bit for bit; a second signal stops at once;
// global_step never goes backwards and time_s carries over; a diverged run stops with exit 1.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPEAT_MS } from '../../packages/node-runner/src/run/signals.ts';
import { difference, fingerprint, metricsRows, NODE_TSX, newRun, signalGroup, startTrain, waitForRow } from '../../tools/reliability/kill-resume.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');

const scratch = mkdtempSync(join(tmpdir(), 'horizon-lifecycle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[]) {
  const [node, ...flags] = NODE_TSX;
  const run = spawnSync(node, [...flags, main, 'train', '--quiet', ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every file of a directory with its size and bytes, to prove a refusal changed nothing. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length)] = readFileSync(p).toString('base64');
    }
  };
  walk(dir);
  return out;
}

/**
 * Every run of this file: tools/reliability/kill-resume.ts's TRIAL_SETS made cheaper, since most of
 * the file's time was these runs (six from scratch, each resumed). Half the SFT steps and one
 * update epoch (4 optimizer steps per iteration instead of 16), with smaller evaluations, keep every
 * moment a test waits for — an SFT step with 15 still to go, RL iterations 3 and 5 of 6 with
 * checkpoints every 2 — and the resumed runs are still compared to the bit.
 */
const LIFECYCLE_SETS = [
  'sft.steps=20',
  'rl.iterations=6',
  'rl.promptsPerIteration=16',
  'rl.epochs=1',
  'eval.interval=2',
  'eval.heldOutSize=4',
  'eval.oodSize=4',
  'checkpoint.interval=2',
];
const lifecycleRun = (dir: string) => newRun(dir, LIFECYCLE_SETS);

const oneSentence = (stderr: string) => {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr.trim().split('\n').at(-1)).toMatch(/^horizon train: /);
};

describe('horizon train: the run lifecycle', () => {
  const reference = join(scratch, 'reference');
  let ref: ReturnType<typeof fingerprint>;
  beforeAll(async () => {
    const r = await startTrain(lifecycleRun(reference)).done;
    expect(r.code, r.stderr).toBe(0);
    ref = fingerprint(reference);
  }, 180_000);

  it('global_step never goes backwards over a whole run; step stays the phase counter', () => {
    const rows = metricsRows(reference) as { phase: string; step: number; global_step: number }[];
    const steps = rows.map((r) => r.global_step);
    expect(
      steps.every((s, i) => i === 0 || s >= steps[i - 1]),
      steps.join(','),
    ).toBe(true);
    expect(rows.find((r) => r.phase === 'rl' && r.step === 1)?.global_step).toBe(21); // 20 SFT steps + 1
    expect(rows.find((r) => r.phase === 'eval' && r.step === 0)?.global_step).toBe(20);
  });

  it('SIGINT in SFT saves an SFT checkpoint, exits 130, and the resumed run is bit for bit the uninterrupted one', async () => {
    const dir = join(scratch, 'sigint-sft');
    const { child, done } = startTrain(lifecycleRun(dir));
    await waitForRow(dir, (r) => r.phase === 'sft' && (r.step as number) >= 5, done);
    signalGroup(child, 'SIGINT');
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(
      /stopped by SIGINT after SFT step \d+; the newest checkpoint is .*step-0 \(SFT step \d+\); continue with: horizon train --resume /,
    );
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    const state = JSON.parse(readFileSync(join(dir, 'checkpoints', 'step-0', 'state.json'), 'utf8'));
    expect(state.extra.phase).toBe('sft');
    const elapsed = state.extra.elapsedSeconds as number;
    const resumed = horizon(['--resume', dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/resuming in SFT after step \d+/);
    expect(difference(fingerprint(dir), ref)).toBe('');
    // time_s carries on from the checkpoint instead of restarting at 0.
    const rows = metricsRows(dir) as { phase: string; step: number; time_s: number }[];
    const next = rows.find((r) => r.phase === 'sft' && r.step === state.extra.sftSteps + 1) as { time_s: number };
    expect(next.time_s).toBeGreaterThan(elapsed);
    expect(rows.every((r, i) => i === 0 || r.time_s >= rows[i - 1].time_s)).toBe(true);
  });

  it('SIGTERM in RL saves a checkpoint and exits 143; a second resume while one runs is refused in one sentence', async () => {
    const dir = join(scratch, 'sigterm-rl');
    const { child, done } = startTrain(lifecycleRun(dir));
    await waitForRow(dir, (r) => r.phase === 'rl' && (r.step as number) >= 3, done);
    // The lock: pid, host and start time of the holder.
    const lock = JSON.parse(readFileSync(join(dir, 'lock'), 'utf8'));
    expect(lock.host).toBe(hostname());
    const before = readFileSync(join(dir, 'checkpoints', 'step-2', 'state.json'));
    // Paused, so the run is still there however long the second process takes to start (on a busy
    // machine it used to finish its last iterations first, and the second resume found nothing to do).
    signalGroup(child, 'SIGSTOP');
    const second = horizon(['--resume', dir]);
    signalGroup(child, 'SIGCONT');
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/is in use by another `horizon train` \(pid \d+, since .*\); wait for it to finish or stop it/);
    oneSentence(second.stderr);
    signalGroup(child, 'SIGTERM');
    const stopped = await done;
    expect(stopped.code, stopped.stderr).toBe(143);
    expect(stopped.stderr).toMatch(/stopped by SIGTERM after RL iteration \d+/);
    // A committed checkpoint is never rewritten (retention may have removed it).
    const step2 = join(dir, 'checkpoints', 'step-2', 'state.json');
    expect(!existsSync(step2) || readFileSync(step2).equals(before)).toBe(true);
    const resumed = horizon(['--resume', dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(difference(fingerprint(dir), ref)).toBe('');
  });

  it('kill -9 twice (in SFT and in RL), each resumed: identical to the uninterrupted run, nothing lost or duplicated', async () => {
    const dir = join(scratch, 'kill');
    const { child, done } = startTrain(lifecycleRun(dir));
    await waitForRow(dir, (r) => r.phase === 'rl' && (r.step as number) >= 3, done);
    signalGroup(child, 'SIGKILL');
    await done;
    // A stale lock (dead pid, this host) is taken over with a message.
    expect(existsSync(join(dir, 'lock'))).toBe(true);
    const again = startTrain(['--resume', dir]);
    await waitForRow(dir, (r) => r.phase === 'rl' && (r.step as number) >= 5, again.done);
    signalGroup(again.child, 'SIGKILL');
    await again.done;
    const last = horizon(['--resume', dir]);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toMatch(/taking over the lock of pid \d+ .*no longer running/);
    expect(difference(fingerprint(dir), ref)).toBe('');
  });

  it('a second Ctrl-C stops at once and says what was kept', async () => {
    const dir = join(scratch, 'twice');
    const { child, done } = startTrain(lifecycleRun(dir));
    await waitForRow(dir, (r) => r.phase === 'rl' && (r.step as number) >= 3, done);
    const firstHandled = new Promise<void>((resolve) =>
      child.stderr?.on('data', (d) => {
        if (String(d).includes('SIGINT: stopping after this step')) resolve();
      }),
    );
    signalGroup(child, 'SIGINT');
    await firstHandled;
    // Paused while a person waits before the second Ctrl-C (more than REPEAT_MS, so not a relayed
    // repeat): on a fast or a busy machine alike, the first stop cannot finish in between.
    signalGroup(child, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, REPEAT_MS + 50));
    signalGroup(child, 'SIGINT');
    signalGroup(child, 'SIGCONT');
    const stopped = await done;
    expect(stopped.code, `signal ${stopped.signal}; stderr: ${stopped.stderr}`).toBe(130);
    expect(stopped.stderr).toMatch(/SIGINT again: stopped at once; the newest checkpoint is .*step-\d+ .*; rows logged after it are dropped on resume/);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    const resumed = horizon(['--resume', dir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(difference(fingerprint(dir), ref)).toBe('');
  });

  it('a refused resume changes nothing: another recipe’s checkpoint, a missing samples.jsonl, a lock held by a live process', () => {
    // The case: the newest checkpoint comes from a run of another recipe (here its name differs,
    // spelled with as many bytes so the log's positions still match), and the log runs past it.
    const other = join(scratch, 'other');
    cpSync(reference, other, { recursive: true });
    const text = readFileSync(join(other, 'metrics.jsonl'), 'utf8');
    writeFileSync(join(other, 'metrics.jsonl'), text.replace('"name":"tiny"', '"name":"tinx"'));
    rmSync(join(other, 'checkpoints', 'step-6'), { recursive: true });
    const before = snapshot(other);
    const r = horizon(['--resume', other]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot resume from .*metrics\.jsonl: it was trained with name = "tinx" but this run asks for "tiny"/);
    oneSentence(r.stderr);
    expect(snapshot(other)).toEqual(before);

    const nosamples = join(scratch, 'nosamples');
    cpSync(reference, nosamples, { recursive: true });
    rmSync(join(nosamples, 'samples.jsonl'));
    const before2 = snapshot(nosamples);
    const s = horizon(['--resume', nosamples, '--set', 'rl.iterations=8']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/samples\.jsonl is missing/);
    expect(snapshot(nosamples)).toEqual(before2);

    const held = join(scratch, 'held');
    cpSync(reference, held, { recursive: true });
    const sleeper = spawnSync('sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' });
    const pid = Number(sleeper.stdout.trim());
    try {
      writeFileSync(join(held, 'lock'), `${JSON.stringify({ pid, host: hostname(), started: '2026-01-01T00:00:00.000Z' })}\n`);
      const before3 = snapshot(held);
      const l = horizon(['--resume', held, '--set', 'rl.iterations=8']);
      expect(l.code).toBe(2);
      expect(l.stderr).toContain(`is in use by another \`horizon train\` (pid ${pid}, since 2026-01-01T00:00:00.000Z)`);
      expect(snapshot(held)).toEqual(before3);
      writeFileSync(join(held, 'lock'), `${JSON.stringify({ pid, host: 'elsewhere', started: '2026-01-01T00:00:00.000Z' })}\n`);
      const o = horizon(['--resume', held, '--set', 'rl.iterations=8']);
      expect(o.code).toBe(2);
      expect(o.stderr).toMatch(/locked by a `horizon train` on host elsewhere .*delete .*lock and try again/);
    } finally {
      process.kill(pid);
    }
  });

  it('arguments that would be ignored are refused: a positional, --resume with --out, fewer iterations than done', () => {
    const cases: [string[], RegExp][] = [
      [['tiny'], /takes no positional arguments \(got "tiny"\); to train that recipe, use --recipe tiny\./],
      [['--resume', reference, '--out', join(scratch, 'moved')], /--out cannot move it/],
      [['--resume', reference, '--set', 'rl.iterations=2'], /already completed 6 RL iterations, more than rl\.iterations = 2: nothing left to do/],
      [['--resume', reference], /already completed all 6 RL iterations: nothing left to do; to train further, resume with --set rl\.iterations=N/],
    ];
    const before = snapshot(reference);
    for (const [args, message] of cases) {
      const r = horizon(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      oneSentence(r.stderr);
    }
    expect(snapshot(reference)).toEqual(before);
    expect(existsSync(join(scratch, 'moved'))).toBe(false);
  });

  it('file-system errors are one sentence, exit 2: --out under a file or /dev/null, too long a name, --resume of a file, checkpoints a file', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    const weird = join(scratch, 'weird');
    cpSync(reference, weird, { recursive: true });
    rmSync(join(weird, 'checkpoints'), { recursive: true });
    writeFileSync(join(weird, 'checkpoints'), '');
    const cases: [string[], RegExp][] = [
      [lifecycleRun(join(file, 'run')), /a-file is a file, not a directory; choose another --out/],
      [lifecycleRun('/dev/null'), /--out \/dev\/null is a file, not a directory/],
      [lifecycleRun(join(scratch, 'x'.repeat(300))), /the name is too long for the file system \(ENAMETOOLONG\)/],
      [['--resume', file], /a-file is not a Horizon run directory \(it is a file\)/],
      [['--resume', weird], /checkpoints is a file, not a directory of checkpoints/],
    ];
    for (const [args, message] of cases) {
      const r = horizon(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      oneSentence(r.stderr);
    }
    expect(readdirSync(scratch).some((n) => n.startsWith('xxxx'))).toBe(false);
  });

  it('resuming removes an interrupted checkpoint write and says so', () => {
    const dir = join(scratch, 'garbage');
    cpSync(reference, dir, { recursive: true });
    mkdirSync(join(dir, 'checkpoints', 'step-7'));
    writeFileSync(join(dir, 'checkpoints', 'step-7', '.policy.safetensors.tmp-1-abcd'), 'partial');
    const r = horizon(['--resume', dir, '--set', 'rl.iterations=7']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/removed .*checkpoints\/step-7, an interrupted checkpoint write or removal/);
    expect(existsSync(join(dir, 'checkpoints', 'step-7', 'COMMIT'))).toBe(true);
    const steps = metricsRows(dir).map((x) => x.global_step as number);
    expect(steps.every((s, i) => i === 0 || s >= steps[i - 1])).toBe(true);
  });
});

describe('horizon train: a diverged run', () => {
  it('a diverging recipe stops at the first non-finite loss or gradient norm with exit 1, naming it, and saves nothing', () => {
    const dir = join(scratch, 'diverged');
    // The schema caps lr at 1; no clipping, β2 = 0 and ε = 1e-30 make AdamW divide 0 by ~0 (measured: sft/loss = NaN at step 3).
    const diverging = ['sft.steps=20', 'sft.lr=1', 'rl.gradClip=0', 'optim.beta2=0', 'optim.eps=1e-30'];
    const r = horizon(['--recipe', 'tiny', ...diverging.flatMap((s) => ['--set', s]), '--out', dir]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/training diverged: sft\/(loss|grad_norm) = (NaN|Infinity|-Infinity) at SFT step \d+; no checkpoint holds the diverged weights/);
    oneSentence(r.stderr);
    const rows = metricsRows(dir);
    const last = rows.at(-1) as { metrics: Record<string, unknown> };
    expect(Object.values(last.metrics).some((v) => typeof v === 'string')).toBe(true); // the NaN row is logged
    expect(readdirSync(join(dir, 'checkpoints'))).toEqual([]);
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });
});

/** Mounts a tmpfs (root only); undefined where this machine cannot, and the test says so. */
function mountTmpfs(dir: string, options: string): boolean {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) console.warn(`SKIPPED: cannot mount a tmpfs here (${r.stderr.trim()}); the ENOSPC and read-only cases need root`);
  return r.status === 0;
}

const tempFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => /(^|\/)\.[^/]*\.tmp-/.test(p) || /\.(next|old)$/.test(p));

describe('horizon train: a full or read-only disk', () => {
  it('ENOSPC while writing a checkpoint and while resuming: one sentence, exit 2, no temp files, committed checkpoints still load', async () => {
    const mnt = join(scratch, 'small');
    // ~1.2 MB: the logs and the first checkpoint (~0.75 MB) fit, the second does not.
    if (!mountTmpfs(mnt, 'size=1200k')) return;
    try {
      const dir = join(mnt, 'run');
      const r = horizon(lifecycleRun(dir));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /cannot write to run directory .*: there is no space left on the device \(ENOSPC\); fix that, then the newest checkpoint is .*step-2/,
      );
      oneSentence(r.stderr);
      expect(tempFiles(dir)).toEqual([]);
      expect(existsSync(join(dir, 'lock'))).toBe(false);
      const again = horizon(['--resume', dir]);
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toMatch(/no space left on the device \(ENOSPC\)/);
      expect(tempFiles(dir)).toEqual([]);
      spawnSync('mount', ['-o', 'remount,size=20m', mnt]);
      const done = horizon(['--resume', dir]);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain('resuming after iteration 2');
      const ref = fingerprint(join(scratch, 'reference'));
      expect(difference(fingerprint(dir), ref)).toBe('');
    } finally {
      spawnSync('umount', [mnt]);
    }
  });

  it('a read-only directory: one sentence before anything is written', () => {
    const mnt = join(scratch, 'ro');
    if (!mountTmpfs(mnt, 'ro,size=1m')) return;
    try {
      const r = horizon(lifecycleRun(join(mnt, 'run')));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/cannot create the run directory .*: the file system is read-only \(EROFS\)/);
      oneSentence(r.stderr);
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});
