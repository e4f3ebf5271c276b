import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeScript, FakeScriptInput } from './fake-script';
import { loadFakeScript, parseFakeScript } from './fake-script';
import { renderReply } from './rendered-reply';
import { ScriptEngine } from './script-engine';
import { anthropicSchemaViolation, strictSchemaViolation } from './strict-schema-check';
import { anthropicWire, THINKS_BY_DEFAULT } from './wire/anthropic.wire';
import { geminiWire } from './wire/gemini.wire';
import { ollamaWire } from './wire/ollama.wire';
import { openaiWire } from './wire/openai.wire';
import type { Wire, WireErrorKind, WireReply, WireRequest } from './wire/wire';

export interface FakeLlmServerOptions {
  /** The script, inline or as a YAML/JSON file (a replay cassette works). */
  script?: FakeScriptInput;
  scriptPath?: string;
  /** When set, a request must carry exactly this key; otherwise any non-empty key passes. A missing key is always a 401. */
  apiKey?: string;
  /** OpenAI wire: refuse `json_schema` response formats with a 400, as models without strict mode do. */
  rejectJsonSchema?: boolean;
  /** The address to listen on (default 127.0.0.1); 0.0.0.0 lets containers reach it through the host's gateway (the compose smoke). */
  host?: string;
  /**
   * A streamed reply (SSE, NDJSON) waits this long before each piece after the first, as a
   * model's tokens do (default 0: all at once), so a test can watch a reply grow.
   */
  streamDelayMs?: number;
}

/** One request as the server received it; auth headers are redacted. */
export interface FakeLlmRequest {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  wire: Wire['name'] | null;
  role: string | null;
  ordinal: number | null;
  /** Index of the script entry that answered, if any. */
  entry: number | null;
  fault: string | null;
  /** Why the script could not answer (exhausted, prompt guard), as sent back to the client. */
  error: string | null;
  status: number | null;
}

export interface FakeLlmServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Base URLs to put in a provider config, per wire. */
  baseUrls: { anthropic: string; openai: string; gemini: string; ollama: string };
  requests: FakeLlmRequest[];
  /** Script entries used so far (per entry index). */
  usage(): number[];
  close(): Promise<void>;
}

const WIRES: Wire[] = [anthropicWire, openaiWire, geminiWire, ollamaWire];
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'proxy-authorization']);
const FAULT_ERRORS: Partial<Record<string, WireErrorKind>> = {
  '401': 'auth',
  '404': 'not_found',
  '429': 'rate_limit',
  '500': 'server',
  usage_limit: 'usage_limit',
};

function redactHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k] = SECRET_HEADERS.has(k) ? '<redacted>' : Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes each streamed piece, `delayMs` apart; stops if the client hung up. */
async function stream(res: ServerResponse, pieces: string[], delayMs: number): Promise<void> {
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && delayMs > 0) await pause(delayMs);
    if (res.destroyed) return;
    res.write(piece);
  }
  res.end();
}

function send(res: ServerResponse, r: WireReply, delayMs = 0): void {
  if (r.sse) {
    res.writeHead(r.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...r.headers });
    void stream(res, r.sse, delayMs);
    return;
  }
  if (r.ndjson) {
    res.writeHead(r.status, { 'content-type': 'application/x-ndjson', ...r.headers });
    void stream(res, r.ndjson.map((l) => `${l}\n`), delayMs);
    return;
  }
  const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {});
  res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
  res.end(body);
}

/**
 * A local stand-in for the LLM APIs: Anthropic Messages, OpenAI chat completions, Gemini
 * generateContent and Ollama /api/chat on one port (each streaming when its SDK asks), answering from a
 * script (see ScriptEngine for how a reply is chosen), checking prompt guards, injecting
 * faults, and logging every request for assertions. The real SDKs are pointed at it by base URL.
 */
export async function startFakeLlmServer(opts: FakeLlmServerOptions): Promise<FakeLlmServer> {
  const script: FakeScript = opts.scriptPath ? loadFakeScript(opts.scriptPath) : parseFakeScript(opts.script ?? { replies: [] });
  const engine = new ScriptEngine(script);
  const requests: FakeLlmRequest[] = [];
  const hangs = new Set<NodeJS.Timeout>();
  let seq = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: { message: `fake-llm crashed: ${e.message}` } } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const n = ++seq;
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      // logged as the raw string
    }
    const entry: FakeLlmRequest = {
      seq: n,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries([...url.searchParams].map(([k, v]) => [k, k === 'key' ? '<redacted>' : v])),
      headers: redactHeaders(req.headers),
      body,
      wire: null,
      role: null,
      ordinal: null,
      entry: null,
      fault: null,
      error: null,
      status: null,
    };
    requests.push(entry);
    const reply = (r: WireReply) => {
      entry.status = r.status;
      send(res, r, opts.streamDelayMs);
    };
    const wire = WIRES.find((w) => w.matches(entry.method, url.pathname));
    if (!wire) {
      entry.error = `fake-llm does not serve ${entry.method} ${url.pathname}`;
      return reply({ status: 404, body: { error: { message: entry.error } } });
    }
    entry.wire = wire.name;
    const wreq: WireRequest = {
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {},
    };
    const fail = (kind: WireErrorKind, message?: string, extra: { retryAfterS?: number; key?: string } = {}) => {
      if (message) entry.error = message;
      reply(wire.error(kind, { req: wreq, message, seq: n, ...extra }));
    };

    const key = wire.apiKey(wreq);
    if (key !== undefined && (!key || (opts.apiKey !== undefined && key !== opts.apiKey))) {
      return fail('auth', undefined, { key: key ?? '' });
    }
    if (wire.name === 'openai') {
      const format = wreq.body.response_format as { type?: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } } | undefined;
      if (format?.type === 'json_schema') {
        if (opts.rejectJsonSchema) {
          return fail('bad_request', `Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.`);
        }
        const violation = format.json_schema?.strict ? strictSchemaViolation(format.json_schema.schema, format.json_schema.name) : null;
        if (violation) return fail('bad_request', violation);
      }
    }

    if (wire.name === 'anthropic') {
      const format = (wreq.body.output_config as { format?: { type?: string; schema?: unknown } } | undefined)?.format;
      const violation = format?.type === 'json_schema' ? anthropicSchemaViolation(format.schema) : null;
      if (violation) return fail('bad_request', violation);
      // Models that think by default refuse a forced tool (Claude Sonnet 5.5 / Opus 5.5 migration guides).
      const choice = wreq.body.tool_choice as { type?: string } | undefined;
      if ((choice?.type === 'tool' || choice?.type === 'any') && THINKS_BY_DEFAULT.test(String(wreq.body.model ?? ''))) {
        return fail('bad_request', `tool_choice forces tool use, which is not supported with thinking; ${String(wreq.body.model)} thinks by default`);
      }
    }

    const prompt = wire.prompt(wreq);
    const turn = engine.next(prompt);
    Object.assign(entry, { role: turn.role, ordinal: turn.ordinal, entry: turn.index, fault: turn.entry?.fault ?? null });
    if (turn.error || !turn.entry) return fail('bad_request', turn.error ?? 'fake-llm: no reply');
    const scripted = turn.entry;
    if (scripted.http) {
      entry.fault = `http ${scripted.http.status}`;
      return reply({ status: scripted.http.status, headers: scripted.http.headers, body: scripted.http.body });
    }
    const errorKind = scripted.fault ? FAULT_ERRORS[scripted.fault] : undefined;
    if (errorKind) {
      return fail(errorKind, undefined, { retryAfterS: scripted.retry_after_s, key: key ?? undefined });
    }
    if (scripted.fault === 'hang') {
      // Never answer; drop the connection after hang_ms (or when the server closes).
      if (scripted.hang_ms) {
        const t = setTimeout(() => {
          hangs.delete(t);
          res.destroy();
        }, scripted.hang_ms);
        hangs.add(t);
      }
      return;
    }
    if (scripted.fault === 'malformed_body') {
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "broken", "content": [');
      return;
    }
    reply(wire.success({ req: wreq, reply: renderReply(scripted, prompt), fault: scripted.fault, seq: n }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    baseUrls: { anthropic: url, openai: `${url}/v1`, gemini: url, ollama: url },
    requests,
    usage: () => engine.usage(),
    close: async () => {
      for (const t of hangs) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
