import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { MalformedBodyError } from './api-error';

/** Content types read as YAML text; text/plain so `curl --data-binary @project.yaml` works as is. */
export const YAML_CONTENT_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/plain'];

/**
 * JSON and YAML-as-text bodies, both capped at API_BODY_LIMIT. Nest would map a JSON syntax
 * error to a bare 400; the error middleware right after the parsers tags it so the reply
 * says the JSON was malformed and where.
 */
export function registerBodyParsers(app: NestExpressApplication, limit: string): void {
  app.useBodyParser('json', { limit });
  app.useBodyParser('text', { limit, type: YAML_CONTENT_TYPES, defaultCharset: 'utf-8' });
  app.use((err: Error & { type?: string }, _req: Request, _res: Response, next: NextFunction) => {
    next(err?.type === 'entity.parse.failed' ? new MalformedBodyError('JSON', err) : err);
  });
}
