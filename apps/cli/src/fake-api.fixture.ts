import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunEventEnvelope } from '@roundtable/contracts';
import type { CliIo, OutStream } from './terminal';

/** Test doubles for the CLI's specs: a local HTTP server standing in for the API, and captured output. */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => unknown;

export interface FakeApi {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A node:http server on a free port; every request is recorded, then handed to `handler`. */
export async function startFakeApi(handler: FakeHandler): Promise<FakeApi> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const recorded = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** The frame the API writes for one event (apps/api/src/sse-frames.ts). */
export const sseFrame = (e: RunEventEnvelope): string => `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.write('retry: 20\n\n');
}

export interface CapturedIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
}

/** A CliIo that records what is written; `tty` makes stdout look like a terminal. */
export function captureIo(opts: { tty?: boolean; env?: Record<string, string | undefined>; cwd?: string; columns?: number } = {}): CapturedIo {
  let out = '';
  let err = '';
  const stdout: OutStream = { write: (s: string) => (out += s), isTTY: opts.tty ?? false, columns: opts.columns };
  const stderr: OutStream = { write: (s: string) => (err += s), isTTY: false };
  return { io: { stdout, stderr, env: opts.env ?? {}, cwd: opts.cwd ?? process.cwd() }, stdout: () => out, stderr: () => err };
}

/** A port nothing listens on: bound, read, then released. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
