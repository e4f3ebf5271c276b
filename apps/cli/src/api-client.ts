import { randomUUID } from 'node:crypto';

/**
 * The REST client: the one place that knows the API's base URL, the bearer token and how an
 * error reply looks (`{ error, message, issues? }`). The CLI never reaches Redis or Postgres;
 * everything it shows comes through here or the event stream.
 */

export interface ApiIssue {
  path: string;
  message: string;
}

/** The API answered with a non-2xx status. */
export class ApiHttpError extends Error {
  constructor(
    readonly method: string,
    readonly route: string,
    readonly status: number,
    /** `error` code of the reply, or `http_<status>` when the body was not ours. */
    readonly code: string,
    readonly apiMessage: string,
    readonly issues: ApiIssue[],
    readonly body: unknown,
  ) {
    super(`${method} ${route} answered HTTP ${status} (${code}): ${apiMessage}`);
  }
}

/** Nothing answered at the API's address (refused, DNS, timeout …). */
export class ApiUnreachableError extends Error {
  constructor(
    readonly api: string,
    readonly reason: string,
    /** The request may have reached the API (it timed out, or its connection dropped): only a request safe to repeat is sent again. */
    readonly mayHaveArrived = false,
  ) {
    super(`cannot reach the Roundtable API at ${api}: ${reason} (start it, or pass --api)`);
  }
}

/** undici's codes for a connection lost after it was made: the request may have been read and acted on. */
const LOST_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** A request timeout or a connection reset, as opposed to nothing listening (refused, DNS): the cases a retry is for. */
export function mayHaveArrived(err: unknown): boolean {
  const e = err as { name?: string; cause?: { code?: string } } | null;
  return e?.name === 'TimeoutError' || LOST_CONNECTION_CODES.has(e?.cause?.code ?? '');
}

/** The reason a fetch failed, as the OS said it (ECONNREFUSED 127.0.0.1:3000) rather than "fetch failed". */
export function networkReason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string; errors?: { message?: string }[] } } | null;
  if (e?.name === 'TimeoutError') return 'no answer in time';
  const cause = e?.cause;
  if (cause?.message) return cause.message;
  if (cause?.errors?.[0]?.message) return cause.errors[0].message;
  if (cause?.code) return cause.code;
  return e?.message ?? String(err);
}

/** The `issues` of an error body, whatever shape they came in. */
export function issuesOf(body: unknown): ApiIssue[] {
  const raw = (body as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(raw)) return [];
  return raw.map((i) =>
    typeof i === 'string'
      ? { path: '', message: i }
      : { path: String((i as ApiIssue).path ?? ''), message: String((i as ApiIssue).message ?? JSON.stringify(i)) },
  );
}

export interface ApiClientOptions {
  api: string;
  token?: string;
  /** Per request, not for the event stream (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class ApiClient {
  readonly api: string;
  private readonly token?: string;
  private readonly timeoutMs: number;
  private readonly doFetch: typeof fetch;

  constructor(opts: ApiClientOptions) {
    this.api = opts.api.replace(/\/+$/, '');
    this.token = opts.token || undefined;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.doFetch = opts.fetch ?? fetch;
  }

  url(route: string): string {
    return `${this.api}${route}`;
  }

  /** Headers every request carries: the bearer token when there is one. */
  authHeaders(): Record<string, string> {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  async getJson<T>(route: string): Promise<T> {
    return JSON.parse(await this.request('GET', route)) as T;
  }

  /** A GET whose reply headers matter too (GET /v1/runs's X-Next-Cursor). */
  async getJsonWithHeaders<T>(route: string): Promise<{ body: T; headers: Headers }> {
    const { text, headers } = await this.send('GET', route);
    return { body: JSON.parse(text) as T, headers };
  }

  async postJson<T>(route: string, body: unknown): Promise<T> {
    const text = await this.request('POST', route, body);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * A POST that makes something (POST /v1/runs): one Idempotency-Key for all its tries, so a try
   * that timed out or lost its connection (the API may have made the run and lost the answer) is
   * sent again and answered with the same run, never a second. Nothing listening is not retried.
   */
  async postJsonIdempotent<T>(route: string, body: unknown, opts: { key?: string; tries?: number; backoffMs?: number } = {}): Promise<T> {
    const key = opts.key ?? randomUUID();
    const tries = opts.tries ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        const text = await this.request('POST', route, body, { 'idempotency-key': key });
        return (text ? JSON.parse(text) : {}) as T;
      } catch (err) {
        if (!(err instanceof ApiUnreachableError && err.mayHaveArrived) || attempt >= tries) throw err;
        await new Promise((r) => setTimeout(r, (opts.backoffMs ?? 500) * attempt));
      }
    }
  }

  async getText(route: string): Promise<string> {
    return this.request('GET', route);
  }

  /** One request; resolves with the body text of a 2xx reply, throws ApiHttpError or ApiUnreachableError. */
  async request(method: string, route: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<string> {
    return (await this.send(method, route, body, extraHeaders)).text;
  }

  private async send(method: string, route: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<{ text: string; headers: Headers }> {
    const headers: Record<string, string> = { ...this.authHeaders(), ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.doFetch(this.url(route), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new ApiUnreachableError(this.api, networkReason(err), mayHaveArrived(err));
    }
    const text = await res.text();
    if (res.ok) return { text, headers: res.headers };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const p = parsed as { error?: unknown; message?: unknown } | undefined;
    throw new ApiHttpError(
      method,
      route,
      res.status,
      typeof p?.error === 'string' ? p.error : `http_${res.status}`,
      typeof p?.message === 'string' ? p.message : text.slice(0, 500) || res.statusText,
      issuesOf(parsed),
      parsed ?? text,
    );
  }
}

/** A path segment: run and call ids are ours, but a typo must not turn into another route. */
export const seg = (s: string): string => encodeURIComponent(s);
