import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { ApiError, MalformedBodyError } from './api-error';
import { jsonTooDeep, MAX_BODY_DEPTH, TooDeep, yamlTooDeep } from './body-depth';

/** Content types read as YAML text; text/plain so `curl --data-binary @project.yaml` works as is. */
export const YAML_CONTENT_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'];

const TOO_DEEP = 'entity.too.deep';

/** body-parser's `verify` hook: runs on the raw bytes before JSON.parse or the route sees them. */
function refuseDeep(measure: (buf: Buffer, encoding: string) => TooDeep | null, format: string) {
  return (_req: Request, _res: Response, buf: Buffer, encoding: string) => {
    const deep = measure(buf, encoding);
    if (deep) {
      throw Object.assign(
        new Error(`the ${format} body nests deeper than ${MAX_BODY_DEPTH} levels (line ${deep.line}); a project config nests about 5 deep, so flatten it`),
        { type: TOO_DEEP },
      );
    }
  };
}

/**
 * JSON and YAML-as-text bodies, both capped at API_BODY_LIMIT and at MAX_BODY_DEPTH levels of
 * nesting (measured before parsing, so a deep body is a 400, never a stack overflow). Nest would
 * map a JSON syntax error to a bare 400; the error middleware right after the parsers tags it so
 * the reply says the JSON was malformed and where (line and column, from body-parser's copy of the text).
 */
export function registerBodyParsers(app: NestExpressApplication, limit: string): void {
  // Nest's option type leaves out `verify`, which its rawBody option would take over; this app never
  // sets rawBody, so body-parser gets ours (the deep-body tests in runs.int-spec.ts fail without it).
  const json = { limit, verify: refuseDeep((buf) => jsonTooDeep(buf), 'JSON') };
  const text = {
    limit,
    type: YAML_CONTENT_TYPES,
    defaultCharset: 'utf-8',
    verify: refuseDeep((buf, encoding) => yamlTooDeep(buf.toString(encoding as BufferEncoding)), 'YAML'),
  };
  app.useBodyParser('json', json);
  app.useBodyParser('text', text);
  app.use((err: Error & { type?: string }, _req: Request, _res: Response, next: NextFunction) => {
    if (err?.type === TOO_DEEP) return next(ApiError.badRequest('body_too_deep', err.message, { limit: MAX_BODY_DEPTH }));
    next(err?.type === 'entity.parse.failed' ? new MalformedBodyError('JSON', err, (err as { body?: unknown }).body as string | undefined) : err);
  });
}
