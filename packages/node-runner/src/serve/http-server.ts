// The HTTP side of `horizon serve`: routing, the optional API key (`Authorization: Bearer KEY`, as
// OpenAI's clients send it), the body-size limit, JSON parsing, the per-request time limit, and an
// OpenAI error body for everything that goes wrong — a bad request never takes the server down.
// node:http only, which Deno also provides, so the same server runs under both.

import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError } from './api-error.ts';
import { asApiError, chatCompletions, completions, type RequestContext } from './handlers.ts';
import { postReward, trainingStatus } from './rewards.ts';
import type { ServedModel } from './served-model.ts';
import { chatRequest, completionRequest, type ServeLimits } from './validate.ts';

export interface ServerOptions extends ServeLimits {
  /** Required as a Bearer token when set. */
  apiKey: string | undefined;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** A request's choices end where they are (finish_reason "length") after this long. */
  requestTimeoutMs: number;
  /** Most sequences (choices) waiting or sampling at once; a request beyond is answered 429. */
  maxPending: number;
}

function sendError(res: ServerResponse, error: ApiError): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(error.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(error.body()));
}

function authorized(req: IncomingMessage, apiKey: string | undefined): boolean {
  if (apiKey === undefined) return true;
  const header = req.headers.authorization ?? '';
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
  const expected = Buffer.from(apiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The body as parsed JSON; too large is a 413 (and the rest is not read), unparsable a 400. */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit)
    throw new ApiError(413, `The request body is ${declared} bytes; the limit is ${limit}.`, 'invalid_request_error', null, 'request_too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, `The request body is over the limit of ${limit} bytes.`, 'invalid_request_error', null, 'request_too_large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'We could not parse the JSON body of your request: it is not valid JSON.', 'invalid_request_error', null, 'invalid_json');
  }
}

function modelObject(model: ServedModel) {
  return { id: model.id, object: 'model', created: model.created, owned_by: 'horizon' };
}

async function route(req: IncomingMessage, res: ServerResponse, model: ServedModel, options: ServerOptions): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
  if (!authorized(req, options.apiKey))
    throw new ApiError(401, 'Incorrect API key provided: send it as "Authorization: Bearer KEY".', 'authentication_error', null, 'invalid_api_key');
  const endpoints: Record<string, string> = {
    '/v1/models': 'GET',
    '/v1/completions': 'POST',
    '/v1/chat/completions': 'POST',
    // Training mode's extension endpoints (rewards.ts).
    ...(model.training ? { '/v1/horizon/rewards': 'POST', '/v1/horizon/status': 'GET' } : {}),
  };
  const modelPath = path.startsWith('/v1/models/') ? decodeURIComponent(path.slice('/v1/models/'.length)) : undefined;
  const method = modelPath !== undefined ? 'GET' : endpoints[path];
  if (method === undefined)
    throw new ApiError(
      404,
      `There is no endpoint ${req.method} ${path}; this server has ${Object.keys(endpoints).join(', ')}.`,
      'not_found_error',
      null,
      'unknown_url',
    );
  if (req.method !== method) throw new ApiError(405, `${path} takes ${method}, not ${req.method}.`, 'invalid_request_error', null, 'method_not_allowed');
  if (path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [modelObject(model)] }));
    return;
  }
  if (modelPath !== undefined) {
    if (modelPath !== model.id)
      throw new ApiError(404, `The model ${JSON.stringify(modelPath)} does not exist.`, 'not_found_error', 'model', 'model_not_found');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(modelObject(model)));
    return;
  }
  if (model.training && path === '/v1/horizon/status') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(trainingStatus(model.training)));
    return;
  }
  const body = await readJson(req, options.maxBodyBytes);
  if (model.training && path === '/v1/horizon/rewards') {
    const answer = await postReward(model.training, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
    return;
  }
  const client = new AbortController();
  const time = new AbortController();
  // 'close' before the response finished: the client went away (a stream it stopped reading, a dropped connection).
  res.on('close', () => {
    if (!res.writableFinished) client.abort();
  });
  const timer = setTimeout(() => time.abort(), options.requestTimeoutMs);
  const ctx: RequestContext = { model, maxPending: options.maxPending, signal: client.signal, deadline: time.signal, res };
  try {
    if (path === '/v1/completions') await completions(completionRequest(body, options), ctx);
    else await chatCompletions(chatRequest(body, options), ctx);
  } finally {
    clearTimeout(timer);
  }
}

export function createServeServer(model: ServedModel, options: ServerOptions): Server {
  const server = createServer((req, res) => {
    route(req, res, model, options).catch((error: unknown) => {
      const apiError = asApiError(error);
      // A 413 leaves the rest of the body unread: close the connection once answered instead of draining it.
      if (apiError.status === 413 && !res.headersSent) {
        res.setHeader('connection', 'close');
        res.on('finish', () => req.destroy());
      }
      sendError(res, apiError);
    });
  });
  // Slow clients cannot hold a connection forever: headers within 10 s, the whole request within the time limit.
  server.headersTimeout = 10_000;
  server.requestTimeout = options.requestTimeoutMs + 10_000;
  // A request node:http could not read never reaches `route`; it still gets an OpenAI error body
  // that says why. A busy event loop (the GPU scheduler between awaits) can hold parsed headers
  // past headersTimeout: that is a 408 the client may retry, not a malformed request.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return void socket.destroy();
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const apiError = timedOut
      ? new ApiError(408, `The request's headers did not arrive within ${server.headersTimeout / 1000} s.`, 'invalid_request_error', null, 'request_timeout')
      : new ApiError(400, `The request is not valid HTTP/1.1 (${error.code ?? error.message}).`, 'invalid_request_error', null, 'malformed_request');
    const body = JSON.stringify(apiError.body());
    const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  return server;
}
