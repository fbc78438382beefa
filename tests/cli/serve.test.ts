// `horizon serve --checkpoint DIR` through the real CLI on a few-second tiny run, with the `openai`
// npm package as the client: the model is listed under its recipe and step, a greedy completion
// carries its token ids (as many as usage counts), the same request streamed (many sampler calls, the
// KV cache carried between them) gives the same text as one call, concurrent requests batched
// together give what each gives alone, a seeded sampled request repeats, top_logprobs (a full forward
// pass) agree with the sampler's own log-probs, and SIGTERM stops the server with exit 0. Under Deno
// (node:http there) the same greedy request gives the same text as under Node. A missing checkpoint
// is one sentence and exit 2.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denoPath } from '../support/deno.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-serve-cli-'));
const run = join(scratch, 'tiny');
let server: ChildProcess | undefined;
let client: OpenAI;
let modelId = '';
let greedyText = '';

/** Starts `horizon serve` on the tiny run under a runtime, on a free port; resolves once it listens. */
async function startServer(command: string, args: string[]): Promise<{ child: ChildProcess; client: OpenAI }> {
  const child = spawn(command, [...args, main, 'serve', '--checkpoint', run, '--port', '0', '--chunk-tokens', '3'], { cwd: root });
  const output: string[] = [];
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(output.join(''));
      if (m) resolve(m[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.on('exit', (code) => reject(new Error(`horizon serve exited ${code}: ${output.join('')}`)));
  });
  return { child, client: new OpenAI({ baseURL: base, apiKey: 'unused', maxRetries: 0, timeout: 120_000 }) };
}

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
  const started = await startServer(process.execPath, ['--import', 'tsx']);
  server = started.child;
  client = started.client;
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
    greedyText = one.choices[0].text;
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

  it('scores top_logprobs with the policy: a distribution that agrees with the sampler’s own log-probs', async () => {
    const r = await client.chat.completions.create({
      model: modelId,
      messages: [{ role: 'user', content: '12+3=' }],
      max_tokens: 6,
      temperature: 1,
      seed: 3,
      logprobs: true,
      top_logprobs: 3,
    });
    const content = r.choices[0].logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    for (const t of content) {
      const top = t.top_logprobs.map((a) => a.logprob);
      expect(top).toHaveLength(3);
      expect([...top].sort((a, b) => b - a)).toEqual(top);
      expect(top.reduce((sum, lp) => sum + Math.exp(lp), 0)).toBeLessThanOrEqual(1 + 1e-5);
      // At temperature 1 and no top-k the sampling distribution is the model's: where the sampled token is
      // among the alternatives, the full forward pass and the decode path give it the same log-prob.
      const same = t.top_logprobs.find((a) => a.token === t.token);
      if (same) expect(Math.abs(same.logprob - t.logprob)).toBeLessThan(1e-3);
      else expect(t.logprob).toBeLessThanOrEqual(top[2] + 1e-3);
    }
  });

  it('stops on SIGTERM with exit 0', async () => {
    const exited = new Promise<number | null>((resolve) => server?.once('exit', resolve));
    server?.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = undefined;
  });
});

describe('horizon serve under Deno', () => {
  let deno: ChildProcess | undefined;
  afterAll(() => deno?.kill('SIGKILL'));

  it('answers the same greedy completion as under Node, and stops on SIGTERM', async () => {
    // The binary itself, not the npm wrapper (a node process that would take the SIGTERM and orphan Deno).
    const binary = join(root, 'node_modules', 'deno-cli', process.platform === 'win32' ? 'deno.exe' : 'deno');
    const started = await startServer(existsSync(binary) ? binary : denoPath(), ['run', '-A']);
    deno = started.child;
    const r = await started.client.completions.create({ model: 'tiny-step-1', prompt: '12+34=', max_tokens: 8, temperature: 0 });
    expect(r.choices[0].text).toBe(greedyText);
    const chat = await started.client.chat.completions.create({
      model: 'tiny-step-1',
      messages: [{ role: 'user', content: '12+34=' }],
      max_tokens: 8,
      temperature: 0,
    });
    expect(chat.choices[0].message.content).toBe(greedyText);
    const exited = new Promise<number | null>((resolve) => deno?.once('exit', resolve));
    deno.kill('SIGTERM');
    expect(await exited).toBe(0);
    deno = undefined;
  }, 120_000);
});

it('says in one sentence that a checkpoint is missing, exit 2', () => {
  const r = spawnSync(tsx, [main, 'serve', '--checkpoint', join(scratch, 'nope')], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('nope');
});
