// A tiny HTTP server on 127.0.0.1 (a secure context, which WebGPU requires) serving in-memory files.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticServer {
  url: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', json: 'application/json', css: 'text/css' };

export async function serveFiles(files: Record<string, string>): Promise<StaticServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/^\//, '') || 'index.html';
    const body = files[path];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.split('.').pop() ?? ''] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
