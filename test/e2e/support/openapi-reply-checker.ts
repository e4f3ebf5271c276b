import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { SseParser } from '@roundtable/testing';

type JsonObject = Record<string, unknown>;

interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonObject }>;
}
interface Operation {
  responses: Record<string, Response>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonObject> };
}

/** One reply, read whole, after it was held against the document. */
export interface CheckedReply<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body (undefined when the reply is not JSON); for an event stream, its events. */
  body: T;
}

/** Component refs are rewritten to these ids, so each component is its own schema in ajv and a ref between them resolves. */
const COMPONENT_BASE = 'https://roundtable.test/components/';
const componentRef = (id: string) => `${COMPONENT_BASE}${id}`;

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as JsonObject).map(([k, v]) => {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) return [k, componentRef(v.slice('#/components/schemas/'.length))];
      // The discriminator's mapping names components the same way; ajv only keeps it as an annotation.
      return [k, rewriteRefs(v)];
    }),
  );
}

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`);

/**
 * Holds every reply against the OpenAPI document the api serves: the path and method must be
 * documented, the status declared for that operation, the declared headers present, the content
 * type one the response lists, and the body valid against its schema (each data frame of an
 * event stream against the event schema). Mismatches are collected, not thrown, so one run of
 * the test lists all of them.
 */
export class OpenApiReplyChecker {
  readonly failures: string[] = [];
  /** `GET /v1/runs/{id} 200`: each operation and status a reply was checked against. */
  readonly answered = new Set<string>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(private readonly doc: OpenApiDocument) {
    // strictTypes off: zod writes `anyOf` branches with a type each, which ajv's strictTypes reports as "missing type".
    this.ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, allErrors: true });
    // OpenAPI's annotation on the events union (ajv's own discriminator support refuses `mapping`).
    this.ajv.addKeyword({ keyword: 'discriminator' });
    for (const [id, schema] of Object.entries(doc.components.schemas)) this.ajv.addSchema({ ...(rewriteRefs(schema) as JsonObject), $id: componentRef(id) });
    this.templates = Object.keys(doc.paths)
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
      // A fixed path before a templated one that could also match it.
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /** Every documented operation, as `GET /v1/runs/{id}`. */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  }

  /** The operations some reply was checked against. */
  exercised(): Set<string> {
    return new Set([...this.answered].map((a) => a.replace(/ \d{3}$/, '')));
  }

  /** Checks one reply (its body already read as text) and returns it parsed. */
  check(method: string, url: string, status: number, headers: Headers, text: string): CheckedReply {
    const path = new URL(url).pathname;
    const where = `${method} ${path} → ${status}`;
    const fail = (why: string) => this.failures.push(`${where}: ${why}`);
    const reply: CheckedReply = { status, headers, text, body: undefined };
    const template = this.templates.find((t) => t.pattern.test(path))?.template;
    const operation = template ? this.doc.paths[template][method.toLowerCase()] : undefined;
    if (!template || !operation) {
      fail('the document has no such operation');
      return reply;
    }
    const declared = operation.responses[String(status)];
    if (!declared) {
      fail(`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(', ')}); body: ${text.slice(0, 200)}`);
      return reply;
    }
    this.answered.add(`${method} ${template} ${status}`);
    // A header declared `required: false` (a next-page cursor on the last page) may be absent; every other one must be there.
    for (const [h, d] of Object.entries(declared.headers ?? {})) if ((d as { required?: boolean }).required !== false && !headers.has(h)) fail(`the declared header ${h} is missing`);

    const media = (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!declared.content) {
      if (text.length) fail(`the document declares no body, the reply has ${text.length} bytes (${media})`);
      return reply;
    }
    const content = declared.content[media];
    if (!content) {
      fail(`content type ${media || '(none)'} is not declared (declared: ${Object.keys(declared.content).join(', ')})`);
      return reply;
    }
    const validate = this.validator(`${method} ${template} ${status} ${media}`, content.schema);
    if (media === 'text/event-stream') {
      reply.body = this.checkEventStream(text, validate, fail);
    } else if (media === 'application/json') {
      try {
        reply.body = JSON.parse(text);
      } catch {
        fail(`the body is not JSON: ${text.slice(0, 200)}`);
        return reply;
      }
      if (!validate(reply.body)) fail(`the body does not match: ${describeErrors(validate.errors).join('; ')}`);
    } else if (!validate(text)) {
      fail(`the body does not match: ${describeErrors(validate.errors).join('; ')}`);
    }
    return reply;
  }

  /** Each data frame is one event: valid against the schema, its frame id the sequence and its event name the type. */
  private checkEventStream(text: string, validate: ValidateFunction, fail: (why: string) => void): unknown[] {
    const frames = new SseParser().push(text.endsWith('\n\n') ? text : `${text}\n\n`);
    const events: unknown[] = [];
    for (const f of frames) {
      if (f.data === undefined) continue;
      let event: { type?: string; sequence?: number };
      try {
        event = JSON.parse(f.data);
      } catch {
        fail(`frame ${f.id}: data is not JSON: ${f.data.slice(0, 200)}`);
        continue;
      }
      events.push(event);
      if (f.id !== String(event.sequence) || f.event !== event.type) fail(`frame id/event ${f.id}/${f.event} is not the event's sequence/type ${event.sequence}/${event.type}`);
      if (validate(event as unknown)) continue;
      // The oneOf's own errors list every branch; the branch the discriminator selects says what is wrong.
      const branch = this.branchOf(event.type);
      const own = branch ? this.validator(`event ${event.type}`, { $ref: branch }) : undefined;
      const errors = own && !own(event) ? own.errors : validate.errors;
      fail(`event ${event.sequence} (${event.type}) does not match${branch ? '' : ' (the discriminator maps no schema to this type)'}: ${describeErrors(errors).join('; ')}; payload ${JSON.stringify((event as { payload?: unknown }).payload).slice(0, 300)}`);
    }
    return events;
  }

  /** The component the events union's discriminator maps `type` to. */
  private branchOf(type: string | undefined): string | undefined {
    const union = this.doc.components.schemas.RunEvent as { discriminator?: { mapping?: Record<string, string> } };
    return type === undefined ? undefined : union.discriminator?.mapping?.[type];
  }

  private validator(key: string, schema: JsonObject): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile(rewriteRefs(schema) as JsonObject);
      this.validators.set(key, v);
    }
    return v;
  }
}

/**
 * A fetch for one api whose every reply goes through the checker before the test sees it. A
 * request names its token (`write` by default, `none` for none); the body is JSON unless it is a
 * string, which goes as is with the given content type.
 */
export function checkedFetch(base: string, checker: OpenApiReplyChecker, tokens: Record<string, string>) {
  return async <T = unknown>(
    method: string,
    route: string,
    opts: { token?: string; body?: unknown; contentType?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<CheckedReply<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token ?? 'write';
    if (token !== 'none') headers.authorization = `Bearer ${tokens[token]}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? (typeof opts.body === 'string' ? 'application/yaml' : 'application/json');
    }
    const url = `${base}${route}`;
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000) });
    const text = await res.text();
    return checker.check(method, url, res.status, res.headers, text) as CheckedReply<T>;
  };
}
