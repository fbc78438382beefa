// `horizon serve --checkpoint DIR` through the real CLI on a few-second tiny run, with the `openai`
// npm package as the client: the model is listed under its recipe and step, a greedy completion's
// text is its token ids decoded, the same request streamed (many sampler calls, the KV cache carried
// between them) gives the same text as one call, concurrent requests batched together give what each
// gives alone, a seeded sampled request repeats, and SIGTERM stops the server with exit 0. A missing
// checkpoint is one sentence and exit 2.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-serve-cli-'));
const run = join(scratch, 'tiny');
let server: ChildProcess | undefined;
let client: OpenAI;
let modelId = '';
const stdout: string[] = [];

afterAll(() => {
  server?.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

beforeAll(async () => {
  const sets = ['sft.steps=20', 'rl.iterations=1', 'rl.promptsPerIteration=4', 'eval.heldOutSize=4', 'eval.oodSize=4', 'checkpoint.interval=1'];
  const trained = spawnSync(tsx, [main, 'train', '--quiet', '--recipe', 'tiny', ...sets.flatMap((set) => ['--set', set]), '--out', run], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
  });
  expect(trained.status, trained.stderr).toBe(0);
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--checkpoint', run, '--port', '0', '--chunk-tokens', '3'], { cwd: root });
  server = child;
  const base = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      stdout.push(chunk.toString());
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (chunk: Buffer) => stdout.push(chunk.toString()));
    child.on('exit', (code) => reject(new Error(`horizon serve exited ${code}: ${stdout.join('')}`)));
  });
  client = new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0, timeout: 120_000 });
}, 240_000);

describe('horizon serve --checkpoint', () => {
  it('lists the checkpoint’s model', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['tiny-step-1']);
    modelId = models.data[0].id;
  });

  it('completes greedily, streams the same text, and batches concurrent requests without changing them', async () => {
    const ask = { model: modelId, prompt: '12+34=', max_tokens: 8, temperature: 0 };
    const one = await client.completions.create(ask);
    const choice = one.choices[0] as (typeof one.choices)[0] & { horizon: { completion_token_ids: number[] } };
    expect(choice.horizon.completion_token_ids.length).toBeGreaterThan(0);
    expect(choice.horizon.completion_token_ids.length).toBeLessThanOrEqual(8);
    expect(one.usage?.completion_tokens).toBe(choice.horizon.completion_token_ids.length);
    let streamed = '';
    for await (const chunk of await client.completions.create({ ...ask, stream: true })) streamed += chunk.choices[0]?.text ?? '';
    expect(streamed).toBe(one.choices[0].text);
    const together = await Promise.all(['12+34=', '7+5=', '12+34=', '99+1='].map((prompt) => client.completions.create({ ...ask, prompt })));
    expect(together[0].choices[0].text).toBe(one.choices[0].text);
    expect(together[2].choices[0].text).toBe(one.choices[0].text);
  });

  it('repeats a seeded sampled chat, and its logprobs are log-probabilities', async () => {
    const ask = { model: modelId, messages: [{ role: 'user' as const, content: '3+4=' }], max_tokens: 6, temperature: 1, seed: 5, logprobs: true };
    const [a, b] = await Promise.all([client.chat.completions.create(ask), client.chat.completions.create(ask)]);
    expect(a.choices[0].message.content).toBe(b.choices[0].message.content);
    for (const t of a.choices[0].logprobs?.content ?? []) expect(t.logprob).toBeLessThanOrEqual(0);
  });

  it('stops on SIGTERM with exit 0', async () => {
    const exited = new Promise<number | null>((resolve) => server?.once('exit', resolve));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = undefined;
  });
});

it('says in one sentence that a checkpoint is missing, exit 2', () => {
  const r = spawnSync(tsx, [main, 'serve', '--checkpoint', join(scratch, 'nope')], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('nope');
});
