import type { IncomingHttpHeaders } from 'node:http';
import type { RenderedReply } from '../rendered-reply';

/** The HTTP failures a wire can answer with, each in that provider's own error shape. */
export type WireErrorKind = 'auth' | 'not_found' | 'rate_limit' | 'server' | 'usage_limit' | 'bad_request';

export interface WireReply {
  status: number;
  headers?: Record<string, string>;
  /** JSON body (an object) or a raw string. */
  body?: unknown;
  /** Server-sent events, each already formatted (`event: …\ndata: …\n\n`). */
  sse?: string[];
  /** Newline-delimited JSON lines, each already serialised (Ollama's stream). */
  ndjson?: string[];
}

export interface WireRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface SuccessContext {
  req: WireRequest;
  reply: RenderedReply;
  /** The entry's fault when it shapes a 200 reply (empty, cancelled, malformed_json). */
  fault: string | undefined;
  /** A per-server counter, for ids. */
  seq: number;
}

export interface ErrorContext {
  req: WireRequest;
  message?: string;
  retryAfterS?: number;
  key?: string;
  seq: number;
}

/** One provider's API as the fake server speaks it. */
export interface Wire {
  readonly name: 'anthropic' | 'openai' | 'gemini' | 'ollama';
  matches(method: string, path: string): boolean;
  /** Every text the model would read (system first), joined: what guards and role detection see. */
  prompt(req: WireRequest): string;
  /** The API key the client sent; undefined for wires with no keys (ollama). */
  apiKey(req: WireRequest): string | null | undefined;
  /** The model the request names. */
  model(req: WireRequest): string;
  success(ctx: SuccessContext): WireReply;
  error(kind: WireErrorKind, ctx: ErrorContext): WireReply;
}

export const header = (h: IncomingHttpHeaders, name: string): string | null => {
  const v = h[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
};

/** Text of a message content that is a string or a list of blocks (or Gemini parts) with text. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(blockText).join('\n');
  return '';
}

/**
 * A tool's result is text the model reads, so guards and role detection see it too: Anthropic's
 * tool_result block (its content a string or text blocks) and Gemini's functionResponse part.
 */
function blockText(b: unknown): string {
  if (!b || typeof b !== 'object') return '';
  const o = b as { text?: unknown; type?: unknown; content?: unknown; functionResponse?: { response?: Record<string, unknown> } };
  if (typeof o.text === 'string') return o.text;
  if (o.type === 'tool_result') return textOf(o.content);
  const response = o.functionResponse?.response;
  if (response) return typeof response.content === 'string' ? response.content : JSON.stringify(response);
  return '';
}

/**
 * A streamed reply's text in the pieces a model would send it in: about a token each (a word
 * and the spacing after it, long words split), so a client sees many small deltas.
 */
export function streamPieces(s: string, size = 8): string[] {
  const out: string[] = [];
  for (const word of s.match(/\S+\s*|\s+/g) ?? []) {
    for (let i = 0; i < word.length; i += size) out.push(word.slice(i, i + size));
  }
  return out;
}
