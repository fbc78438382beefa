// `horizon serve`'s HTTP server end to end with clients nobody here wrote — the `openai` npm package
// (models, completions, chat, streaming, tools, logprobs, seeds) and curl — and with bad input
// (malformed JSON, unknown fields and models, limits, a client leaving mid-stream, a thousand requests
// at once), after each of which the server must still answer. The model is a scripted stand-in for the
// GPU Generator: greedy, it continues the last '=' with "abcdefg<eos>" and the last '?' with a tool
// call; sampled, each token is a hash of the row's key and position, the contract the GPU sampler
// keeps (kernels/src/sampling), so seeds and batching are tested for real. The Generator itself is
// tested in the gpu tier (model/generate.test.ts); the checkpoint loading in tests/cli/serve.test.ts.

import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { promisify } from 'node:util';
import { CharTokenizer, type ChunkSampler, type GeneratedRow, mixSeed, type SamplingOptions, type TopLogprobSource } from '@horizon/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServeServer, type ServerOptions } from './http-server.ts';
import { type ServedModel, servedModel } from './served-model.ts';

const tokenizer = new CharTokenizer({ characters: 'abcdefghijklmnopqrstuvwxyz0123456789 +=?' });
const CONTEXT = 64;
const SCRIPTS: Record<string, number[]> = {
  '=': tokenizer.encode('abcdefg<eos>'),
  '?': tokenizer.encode('<tool_call>add 2 3</tool_call>'),
};
const EOS = tokenizer.id('<eos>');

/** The scripted model; `calls` records each call's row count, to see batching. */
class ScriptedSampler implements ChunkSampler {
  readonly calls: number[] = [];
  async generate(contexts: readonly (readonly number[])[], budgets: readonly number[], options: SamplingOptions): Promise<GeneratedRow[]> {
    this.calls.push(contexts.length);
    await new Promise((r) => setTimeout(r, 5));
    return contexts.map((ctx, b) => {
      const row = [...ctx];
      const ids: number[] = [];
      for (let i = 0; i < budgets[b]; i++) {
        let next: number;
        if (options.temperature > 0) {
          const [k0, k1] = options.keys?.[b] ?? [0, b];
          next = tokenizer.encode('abcdefghij')[mixSeed(options.seed, k0, k1, row.length) % 10];
        } else {
          const at = Math.max(...Object.keys(SCRIPTS).map((t) => row.lastIndexOf(tokenizer.encode(t)[0])));
          const script = at >= 0 ? SCRIPTS[tokenizer.decode([row[at]])] : [];
          next = script[row.length - at - 1] ?? EOS;
        }
        ids.push(next);
        row.push(next);
      }
      return { ids, logprobs: ids.map(() => -0.25) };
    });
  }
}

/** Alternatives as a stand-in: the sampled token first, then the ids after it, each less likely (the real scorer: tests/cli/serve.test.ts). */
const alternatives: TopLogprobSource = {
  topLogprobs: async (_prompt, completion, k) =>
    completion.map((id) => Array.from({ length: k }, (_, i) => ({ id: (id + i) % tokenizer.vocabSize, logprob: -0.25 - i }))),
};

const OPTIONS: ServerOptions = { apiKey: undefined, maxN: 4, maxStops: 4, maxBodyBytes: 64 * 1024, requestTimeoutMs: 30_000, maxPending: 128 };

async function start(options: Partial<ServerOptions> = {}) {
  const sampler = new ScriptedSampler();
  const model: ServedModel = servedModel('tiny', tokenizer, CONTEXT, sampler, { maxRows: 32, chunkTokens: 4 }, 'tiny', alternatives);
  const server = createServeServer(model, { ...OPTIONS, ...options });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, sampler, model, base };
}

let s: Awaited<ReturnType<typeof start>>;
let client: OpenAI;
beforeAll(async () => {
  s = await start();
  client = new OpenAI({ baseURL: `${s.base}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => {
  s.server.closeAllConnections();
  s.server.close();
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: (await res.json()) as { error?: { message: string; param: string | null; code: string | null; type: string } } };
}

/** After anything bad, a plain request is still answered. */
async function stillServes() {
  const r = await client.completions.create({ model: 'tiny', prompt: '1=', max_tokens: 20, temperature: 0 });
  expect(r.choices[0].text).toBe('abcdefg');
}

describe('with the openai client', () => {
  it('lists the model', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['tiny']);
    expect((await client.models.retrieve('tiny')).owned_by).toBe('horizon');
  });

  it('completes, cuts at <eos>, and carries the token ids in the extension field', async () => {
    const r = await client.completions.create({ model: 'tiny', prompt: '2+2=', max_tokens: 20, temperature: 0 });
    expect(r.choices[0].text).toBe('abcdefg');
    expect(r.choices[0].finish_reason).toBe('stop');
    const ext = (r as unknown as { horizon: { prompt_token_ids: number[]; session_id: string } }).horizon;
    expect(ext.prompt_token_ids).toEqual(tokenizer.encode('2+2='));
    expect(typeof ext.session_id).toBe('string');
    const choice = r.choices[0] as unknown as { horizon: { completion_token_ids: number[] } };
    expect(choice.horizon.completion_token_ids).toEqual(tokenizer.encode('abcdefg<eos>'));
    expect(r.usage).toEqual({ prompt_tokens: 4, completion_tokens: 8, total_tokens: 12 });
  });

  it('stops at max_tokens with finish_reason length, and before a stop string', async () => {
    const short = await client.completions.create({ model: 'tiny', prompt: '=', max_tokens: 3, temperature: 0 });
    expect([short.choices[0].text, short.choices[0].finish_reason]).toEqual(['abc', 'length']);
    // Without max_tokens: OpenAI's 16, cut to what the context has room for (64 − 60).
    const defaulted = await client.completions.create({ model: 'tiny', prompt: `${'x'.repeat(59)}=`, temperature: 0 });
    expect([defaulted.choices[0].text, defaulted.choices[0].finish_reason]).toEqual(['abcd', 'length']);
    const stopped = await client.completions.create({ model: 'tiny', prompt: '=', max_tokens: 20, temperature: 0, stop: ['de'] });
    expect([stopped.choices[0].text, stopped.choices[0].finish_reason]).toEqual(['abc', 'stop']);
  });

  it('streams completions, holding back a stop string', async () => {
    const stream = await client.completions.create({ model: 'tiny', prompt: '=', max_tokens: 20, temperature: 0, stop: 'fg', stream: true });
    let text = '';
    let finish: string | null = null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('abcde');
    expect(finish).toBe('stop');
    expect(chunks).toBeGreaterThan(2);
  });

  it('chats with logprobs, streaming and not', async () => {
    const r = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: '1+1=' }], temperature: 0, logprobs: true });
    expect(r.choices[0].message.content).toBe('abcdefg');
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(r.choices[0].logprobs?.content?.map((t) => t.token).join('')).toBe('abcdefg<eos>');
    expect(r.choices[0].logprobs?.content?.[0].logprob).toBe(-0.25);
    const stream = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: '1+1=' }],
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage?.completion_tokens ?? usage;
    }
    expect(text).toBe('abcdefg');
    expect(usage).toBe(8);
  });

  it('gives top_logprobs in chat and completions', async () => {
    const chat = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: '=' }],
      temperature: 0,
      logprobs: true,
      top_logprobs: 2,
    });
    const first = chat.choices[0].logprobs?.content?.[0];
    expect(first?.top_logprobs.map((t) => [t.token, t.logprob])).toEqual([
      ['a', -0.25],
      ['b', -1.25],
    ]);
    const plain = await client.completions.create({ model: 'tiny', prompt: '=', max_tokens: 2, temperature: 0, logprobs: 2 });
    expect(plain.choices[0].logprobs?.top_logprobs).toEqual([
      { a: -0.25, b: -1.25 },
      { b: -0.25, c: -1.25 },
    ]);
    expect(plain.choices[0].logprobs?.tokens).toEqual(['a', 'b']);
  });

  it('samples the same tokens for the same seed, and n different choices', async () => {
    const ask = () => client.completions.create({ model: 'tiny', prompt: 'x', max_tokens: 12, temperature: 1, seed: 42, n: 3 });
    const [a, b] = await Promise.all([ask(), ask()]);
    expect(a.choices.map((c) => c.text)).toEqual(b.choices.map((c) => c.text));
    expect(new Set(a.choices.map((c) => c.text)).size).toBe(3);
    expect(a.choices[0].text).toHaveLength(12);
  });

  it('returns a tool call in OpenAI’s shape and renders it back through the template', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
      },
    ];
    const r = await client.chat.completions.create({ model: 'tiny', messages: [{ role: 'user', content: 'what is 2+3?' }], tools, temperature: 0 });
    const call = r.choices[0].message.tool_calls?.[0];
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function).toEqual({ name: 'add', arguments: '{"a":2,"b":3}' });
    expect(r.choices[0].message.content).toBe('');
    const next = await client.chat.completions.create({
      model: 'tiny',
      tools,
      temperature: 0,
      messages: [{ role: 'user', content: 'what is 2+3?' }, r.choices[0].message, { role: 'tool', tool_call_id: call?.id ?? '', content: '5' }],
    });
    const prompt = (next as unknown as { horizon: { prompt_token_ids: number[] } }).horizon.prompt_token_ids;
    expect(tokenizer.decode(prompt)).toBe('what is 2+3?<tool_call>add 2 3</tool_call><tool_result>5</tool_result>');
    const stream = await client.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'what is 2+3?' }],
      tools,
      temperature: 0,
      stream: true,
    });
    let content = '';
    let name = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      name += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.name ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect([content, name, finish]).toEqual(['', 'add', 'tool_calls']);
  });

  it('batches concurrent requests onto shared sampler calls', async () => {
    const before = s.sampler.calls.length;
    await Promise.all(Array.from({ length: 16 }, () => client.completions.create({ model: 'tiny', prompt: '=', max_tokens: 8, temperature: 0 })));
    const calls = s.sampler.calls.slice(before);
    expect(Math.max(...calls)).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(16 * 2);
  });

  it('raises the client’s own errors for an unknown model and a too-long prompt', async () => {
    await expect(client.completions.create({ model: 'gpt-4', prompt: '=' })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(client.completions.create({ model: 'tiny', prompt: 'a'.repeat(CONTEXT + 1) })).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
    await stillServes();
  });
});

describe('bad input', () => {
  it('answers malformed JSON, unknown fields, limits and unsupported sampling with OpenAI error bodies', async () => {
    const cases: [string, string, number, string | null][] = [
      ['/v1/completions', '{"model": "tiny", "prompt": ', 400, 'invalid_json'],
      ['/v1/completions', '[1, 2]', 400, null],
      ['/v1/completions', '{"model": "tiny", "prompt": "=", "bogus": 1}', 400, 'unknown_parameter'],
      ['/v1/completions', '{"model": "tiny", "prompt": "=", "max_tokens": 1000}', 400, 'context_length_exceeded'],
      ['/v1/completions', '{"model": "tiny", "prompt": "=", "n": 5}', 400, null],
      ['/v1/chat/completions', '{"model": "tiny", "messages": [{"role": "user", "content": "="}], "top_p": 0.5}', 400, 'unsupported_parameter'],
      ['/v1/chat/completions', '{"model": "tiny", "messages": [{"role": "user", "content": "="}], "top_logprobs": 3}', 400, null],
      [
        '/v1/chat/completions',
        '{"model": "tiny", "messages": [{"role": "user", "content": "="}], "logprobs": true, "top_logprobs": 3, "stream": true}',
        400,
        'unsupported_parameter',
      ],
      ['/v1/completions', '{"model": "tiny", "prompt": "=", "logprobs": 6}', 400, null],
      ['/v1/chat/completions', '{"model": "tiny", "messages": []}', 400, null],
      ['/v1/chat/completions', `{"model": "tiny", "messages": [{"role": "user", "content": "${'a'.repeat(100_000)}"}]}`, 413, 'request_too_large'],
      ['/v1/nothing', '{}', 404, 'unknown_url'],
    ];
    for (const [path, body, status, code] of cases) {
      const r = await post(path, body);
      expect([path, body.slice(0, 60), r.status]).toEqual([path, body.slice(0, 60), status]);
      expect(r.body.error?.message).toMatch(/\S/);
      if (code) expect(r.body.error?.code).toBe(code);
    }
    await stillServes();
  });

  it('stops sampling for a client that disconnects mid-stream', async () => {
    const before = s.sampler.calls.length;
    await new Promise<void>((resolve, reject) => {
      const req = request(`${s.base}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
      req.end(JSON.stringify({ model: 'tiny', prompt: 'x', max_tokens: 60, temperature: 1, stream: true }));
      setTimeout(() => reject(new Error('no stream chunk arrived')), 10_000);
    });
    for (let i = 0; i < 100 && s.model.scheduler.pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(s.model.scheduler.pending).toBe(0);
    // 60 tokens at 4 a call would take 15 calls; it ends within a call or two of the first chunk.
    expect(s.sampler.calls.length - before).toBeLessThan(6);
    await stillServes();
  });

  it('answers a thousand requests at once with a completion or a 429 body, and keeps serving', async () => {
    const body = JSON.stringify({ model: 'tiny', prompt: '=', max_tokens: 8, temperature: 0 });
    const results = await Promise.all(Array.from({ length: 1000 }, () => post('/v1/completions', body)));
    const statuses = new Set(results.map((r) => r.status));
    expect([...statuses].every((x) => x === 200 || x === 429)).toBe(true);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(OPTIONS.maxPending);
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.error?.type).toBe('rate_limit_error');
    await stillServes();
  });
});

describe('a vocabulary without <unk>', () => {
  it('refuses a character outside it with a 400 naming it', async () => {
    const digits = new CharTokenizer({ characters: '0123456789+=', specialTokens: ['<eos>'], unknownToken: false });
    const model = servedModel('digits', digits, CONTEXT, new ScriptedSampler(), { maxRows: 4, chunkTokens: 4 });
    const server = createServeServer(model, OPTIONS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const digitsClient = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'unused', maxRetries: 0 });
      await expect(digitsClient.chat.completions.create({ model: 'digits', messages: [{ role: 'user', content: 'what is 1+1=' }] })).rejects.toMatchObject({
        status: 400,
        code: 'unencodable_text',
        message: expect.stringContaining('"w"'),
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the API key', () => {
  it('refuses a request without the key and answers one with it', async () => {
    const locked = await start({ apiKey: 'sesame' });
    try {
      const open = new OpenAI({ baseURL: `${locked.base}/v1`, apiKey: 'sesame', maxRetries: 0 });
      expect((await open.models.list()).data[0].id).toBe('tiny');
      const wrong = new OpenAI({ baseURL: `${locked.base}/v1`, apiKey: 'guess', maxRetries: 0 });
      await expect(wrong.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    } finally {
      locked.server.closeAllConnections();
      locked.server.close();
    }
  });
});

describe('with curl', () => {
  const curl = promisify(execFile);
  it('completes and streams', async () => {
    const request = { model: 'tiny', messages: [{ role: 'user', content: '3=' }], temperature: 0 };
    const data = JSON.stringify(request);
    const plain = await curl('curl', ['-sS', '-H', 'content-type: application/json', '-d', data, `${s.base}/v1/chat/completions`]);
    expect(JSON.parse(plain.stdout).choices[0].message.content).toBe('abcdefg');
    const streamed = await curl('curl', [
      '-sS',
      '-N',
      '-H',
      'content-type: application/json',
      '-d',
      JSON.stringify({ ...request, stream: true }),
      `${s.base}/v1/chat/completions`,
    ]);
    const events = streamed.stdout.split('\n\n').filter((e) => e.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('abcdefg');
    const bad = await curl('curl', ['-sS', '-w', '\n%{http_code}', '-d', '{oops', `${s.base}/v1/completions`]);
    expect(bad.stdout.trim().split('\n').at(-1)).toBe('400');
  });
});

describe('requests node:http cannot read', () => {
  /** The raw answer to `bytes` written on a fresh connection. */
  async function raw(bytes: string): Promise<string> {
    const { port } = s.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.write(bytes);
    await new Promise((resolve) => socket.on('close', resolve));
    return answer;
  }

  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };

  it('a malformed request gets a 400 with an OpenAI error body, and the server goes on', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    expect(answer).toContain('content-type: application/json');
    expect(bodyOf(answer).error.code).toBe('malformed_request');
    await stillServes();
  });

  it('headers that arrive too late get a 408 that says so, not a 400', () => {
    let written = '';
    const socket = {
      writable: true,
      end: (text: string) => {
        written = text;
      },
      destroy: () => {},
    };
    s.server.emit('clientError', Object.assign(new Error('Request Timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    expect(written.startsWith('HTTP/1.1 408 Request Timeout\r\n')).toBe(true);
    expect(bodyOf(written).error).toMatchObject({ code: 'request_timeout', message: "The request's headers did not arrive within 10 s." });
  });
});
