// Resumability's bookkeeping: a run is done only with a result.json of the planned key; a directory
// without one is a run stopped midway; an older key is stale; clearing empties a run's directory.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clearRun, RESULT_FILE, type RunResult, readResult, runState, writeResult } from './results.ts';

const scratch = mkdtempSync(join(tmpdir(), 'horizon-experiment-results-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const result = (key: string): RunResult => ({
  key,
  report: 'r',
  arm: 'a',
  seed: 1,
  curve: [{ iteration: 0, sampledTokens: 0, heldOut: 0.25, ood: 0, seconds: 0 }],
  final: { heldOut: 0.25, ood: 0 },
  seconds: 1,
  sampledTokens: 0,
});

describe('run bookkeeping', () => {
  it('missing → partial → done, and stale under another key', async () => {
    const dir = join(scratch, 'run1');
    expect(await runState(dir, 'k1')).toBe('missing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'metrics.jsonl'), '{}\n');
    expect(await runState(dir, 'k1')).toBe('partial');
    await writeResult(dir, result('k1'));
    expect(await runState(dir, 'k1')).toBe('done');
    expect(await runState(dir, 'k2')).toBe('stale');
    expect((await readResult(dir))?.final.heldOut).toBe(0.25);
  });

  it('writes result.json through a temp file and leaves no temp behind', async () => {
    const dir = join(scratch, 'run2');
    mkdirSync(dir);
    await writeResult(dir, result('k'));
    expect(readdirSync(dir)).toEqual([RESULT_FILE]);
  });

  it('a leftover temp file from a crash is not a result', async () => {
    const dir = join(scratch, 'run3');
    mkdirSync(dir);
    writeFileSync(join(dir, `${RESULT_FILE}.tmp`), '{"key":"k"');
    expect(await runState(dir, 'k')).toBe('partial');
  });

  it('clearRun empties a stopped run before its restart', async () => {
    const dir = join(scratch, 'run4');
    mkdirSync(dir);
    writeFileSync(join(dir, 'metrics.jsonl'), 'half a run\n');
    await clearRun(dir);
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(await runState(dir, 'k')).toBe('partial');
  });
});
