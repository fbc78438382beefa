// `horizon export --run DIR --dataset …` on a small samples.jsonl written here: the rows of each
// format, the completion column, null at prompt (and observation) positions of per-token channels,
// the non-finite rule (null, named in `nonfinite`), the subsample warning and the refusals.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CharTokenizer, formatHeaderLine, type SampleRecord } from '@horizon/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../main.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-export-data-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const tokenizer = new CharTokenizer({ characters: '0123456789+=', specialTokens: ['<eos>'], unknownToken: false });

/** A single-turn addition rollout as the trainer logs it (pieces, roles, channels with 0 off actions). */
function addition(step: number, rolloutId: number, prompt: string, action: string, reward: number, logprob: (number | string)[] | undefined): SampleRecord {
  const tokens = tokenizer.encode(`${prompt}${action}<eos>`);
  const P = tokenizer.encode(prompt).length;
  const roles = tokens.map((_, i) => (i < P ? 'p' : 'a')).join('');
  const record: SampleRecord = {
    phase: logprob ? 'rl' : 'eval',
    step,
    rolloutId,
    groupId: rolloutId >> 1,
    seed: 7,
    prompt,
    turns: [{ action, ending: 'eos' }],
    reward,
    done: true,
    tokens,
    roles,
    pieces: tokens.map((id) => tokenizer.decode([id])),
  };
  if (logprob) record.channels = { logprob, advantage: tokens.map((_, i) => (i < P ? 0 : 0.5)) };
  return record;
}

// Prompt "12+3=" (5 tokens), action "15" + <eos>: channels hold 0 at the 5 prompt positions.
const rows: SampleRecord[] = [
  addition(0, 0, '1+1=', '2', 1, undefined),
  addition(1, 0, '12+3=', '15', 1, [0, 0, 0, 0, 0, -0.1, -0.2, -0.01]),
  addition(1, 1, '12+3=', '16', 0, [0, 0, 0, 0, 0, -0.1, 'NaN', '-Infinity']),
  {
    // A multi-turn rollout: an action that ended at a tool call's stop string, the environment's answer, a final action.
    ...addition(2, 0, '2+2=', '4', 1, [0, 0, 0, 0, -0.3, -0.4]),
    turns: [
      { action: 'call', ending: 'stop', observation: 'result' },
      { action: '4', ending: 'eos' },
    ],
  },
];

async function runDir(name: string, records: readonly SampleRecord[]): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'samples.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  await writeFile(join(dir, 'metrics.jsonl'), formatHeaderLine({ task: { env: 'addition' }, rl: { promptsPerIteration: 8, groupSize: 4 } }));
  return dir;
}

let runs = 0;
async function exportRows(dataset: string, phase = 'rl'): Promise<{ rows: Record<string, unknown>[]; warning: string; about: Record<string, unknown> }> {
  const run = await runDir(`run-${runs++}`, rows);
  const out = join(run, `${dataset}.jsonl`);
  const warnings: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void warnings.push(line));
  try {
    expect(await main(['export', '--run', run, '--dataset', dataset, '--phase', phase, '--out', out])).toBe(0);
  } finally {
    spy.mockRestore();
  }
  const text = await readFile(out, 'utf8');
  return {
    rows: text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
    warning: warnings.join('\n'),
    about: JSON.parse(await readFile(`${out}.meta.json`, 'utf8')),
  };
}

describe('horizon export --dataset', () => {
  it('trl-prompt-completion: prompt and completion text that the tokenizer turns back into the logged ids', async () => {
    const { rows: out } = await exportRows('trl-prompt-completion');
    expect(out).toHaveLength(3);
    expect(out[0]).toMatchObject({ prompt: '12+3=', completion: '15<eos>', reward: 1, phase: 'rl', step: 1, rollout_id: 0 });
    for (const row of out) expect(tokenizer.encode(`${row.prompt}${row.completion}`)).toEqual(row.token_ids);
  });

  it('puts null, not 0, at prompt positions of per-token channels', async () => {
    const { rows: out } = await exportRows('trl-prompt-completion');
    const channels = out[0].channels as Record<string, (number | null)[]>;
    expect(channels.logprob).toEqual([null, null, null, null, null, -0.1, -0.2, -0.01]);
    expect(channels.advantage).toEqual([null, null, null, null, null, 0.5, 0.5, 0.5]);
    expect(out[0].nonfinite).toEqual([]);
  });

  it('writes non-finite numbers as null and names where they were', async () => {
    const { rows: out } = await exportRows('kto');
    expect((out[1].channels as Record<string, unknown[]>).logprob).toEqual([null, null, null, null, null, -0.1, null, null]);
    expect(out[1].nonfinite).toEqual(['channels.logprob[6]', 'channels.logprob[7]']);
    for (const row of out) expect(JSON.stringify(row)).not.toMatch(/NaN|Infinity/);
  });

  it('kto: unpaired rows labelled by success', async () => {
    const { rows: out } = await exportRows('kto');
    expect(out.map((r) => [r.completion, r.label])).toEqual([
      ['15<eos>', true],
      ['16<eos>', false],
      ['4<eos>', true],
    ]);
  });

  it('trl-messages: the prompt as user, actions as assistant, a tool call answered as tool', async () => {
    const { rows: out } = await exportRows('trl-messages');
    expect(out[2].messages).toEqual([
      { role: 'user', content: '2+2=' },
      { role: 'assistant', content: 'call' },
      { role: 'tool', content: 'result' },
      { role: 'assistant', content: '4' },
    ]);
  });

  it("verl: RLHFDataset's fields, with the trajectory in extra_info", async () => {
    const { rows: out } = await exportRows('verl', 'all');
    expect(out).toHaveLength(4);
    expect(out[1]).toMatchObject({
      data_source: 'horizon/addition',
      prompt: [{ role: 'user', content: '12+3=' }],
      ability: 'addition',
      reward_model: { style: 'rule', ground_truth: null },
      extra_info: { index: 1, split: 'rl', response: '15<eos>', reward: 1 },
    });
    // An eval rollout logged no channels: null, not an empty object.
    expect((out[0].extra_info as Record<string, unknown>).channels).toBeNull();
  });

  it('says the rows are a subsample, with the run’s numbers, in a warning and beside the file', async () => {
    const { warning, about } = await exportRows('trl-prompt-completion');
    expect(warning).toContain('samples.jsonl is a subsample');
    expect(warning).toContain('3 RL rollouts over 2 iterations, 1.5 per iteration of the 32 each iteration sampled');
    expect(about).toMatchObject({ rows: 3, phase: 'rl', subsample: expect.stringContaining('subsample') });
  });

  it('carries every rollout of a run that logged them all (log.allSamples), without the subsample warning', async () => {
    // 8 prompts × group 4 = 32 rollouts an iteration, all logged for two iterations.
    const full = [1, 2].flatMap((step) =>
      Array.from({ length: 32 }, (_, id) => addition(step, id, '12+3=', id % 2 ? '15' : '16', id % 2, [0, 0, 0, 0, 0, -0.1, -0.2, -0.3])),
    );
    const run = await runDir('full', full);
    const out = join(run, 'kto.jsonl');
    const warnings: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void warnings.push(line));
    try {
      expect(await main(['export', '--run', run, '--dataset', 'kto', '--out', out])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect((await readFile(out, 'utf8')).trim().split('\n')).toHaveLength(64);
    expect(warnings.join('\n')).not.toContain('warning');
    const about = JSON.parse(await readFile(`${out}.meta.json`, 'utf8'));
    expect(about.subsample).toContain('holds every RL rollout (log.allSamples): 64 over 2 iterations, all 32 of each iteration');
  });

  it('refuses an unknown dataset, a missing run and an existing --out, writing nothing', async () => {
    const run = await runDir('refuse', rows);
    const out = join(run, 'x.jsonl');
    expect(await main(['export', '--run', run, '--dataset', 'alpaca', '--out', out])).toBe(2);
    expect(await main(['export', '--run', join(root, 'nowhere'), '--dataset', 'kto', '--out', out])).toBe(2);
    await expect(readFile(out)).rejects.toThrow();
    await writeFile(out, 'mine\n');
    expect(await main(['export', '--run', run, '--dataset', 'kto', '--out', out])).toBe(2);
    expect(await readFile(out, 'utf8')).toBe('mine\n');
  });
});
