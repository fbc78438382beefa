// Server-sent events as OpenAI streams them: each chunk is one `data: JSON` event, and the stream
// ends with `data: [DONE]` (OpenAI's API reference, "Streaming"). A write to a client that went away
// is dropped, not thrown: the request's abort signal stops its sampling.

import type { ServerResponse } from 'node:http';

export class EventStream {
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  }

  send(data: unknown): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream with `[DONE]`, after an error event when the request failed midway. */
  end(): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.write('data: [DONE]\n\n');
    this.res.end();
  }
}
