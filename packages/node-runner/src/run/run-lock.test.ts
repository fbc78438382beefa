import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunLock } from './run-lock.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-lock-'));
afterAll(() => rm(root, { recursive: true, force: true }));
const lockText = (pid: number, host = hostname()) => `${JSON.stringify({ pid, host, started: '2026-01-01T00:00:00.000Z' })}\n`;

describe('RunLock', () => {
  it('is exclusive: a second acquire is refused naming the holder; release frees it', async () => {
    const said: string[] = [];
    const lock = await RunLock.acquire(root, (l) => said.push(l));
    expect(JSON.parse(await readFile(join(root, 'lock'), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    await expect(RunLock.acquire(root, () => undefined)).rejects.toThrow(`is in use by another \`horizon train\` (pid ${process.pid},`);
    lock.release();
    lock.release();
    expect(existsSync(join(root, 'lock'))).toBe(false);
    expect(said).toEqual([]);
  });

  it('takes over a dead holder on this host, saying so; refuses one from another host', async () => {
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => child.on('exit', r));
    await writeFile(join(root, 'lock'), lockText(child.pid as number));
    const said: string[] = [];
    const lock = await RunLock.acquire(root, (l) => said.push(l));
    expect(said).toEqual([`taking over the lock of pid ${child.pid} (started 2026-01-01T00:00:00.000Z), which is no longer running`]);
    lock.release();
    await writeFile(join(root, 'lock'), lockText(1, 'elsewhere'));
    await expect(RunLock.acquire(root, () => undefined)).rejects.toThrow(/locked by a `horizon train` on host elsewhere \(pid 1,/);
    await rm(join(root, 'lock'));
  });

  it('release leaves a lock that is no longer ours', async () => {
    const lock = await RunLock.acquire(root, () => undefined);
    await writeFile(join(root, 'lock'), lockText(12345));
    lock.release();
    expect(await readFile(join(root, 'lock'), 'utf8')).toBe(lockText(12345));
    await rm(join(root, 'lock'));
  });
});
