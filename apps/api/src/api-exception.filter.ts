import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { ApiErrorBody, MalformedBodyError } from './api-error';

/** http-errors (thrown by body-parser) mark errors safe to show a client with `expose`. */
interface ExposableError {
  status: number;
  expose: true;
  type?: string;
  message: string;
}

function isExposable(e: unknown): e is ExposableError {
  const x = e as Partial<ExposableError> | null;
  return !!x && typeof x === 'object' && x.expose === true && typeof x.status === 'number' && x.status >= 400 && x.status < 500;
}

function codeOfStatus(status: number): string {
  const name = HttpStatus[status];
  return typeof name === 'string' ? name.toLowerCase() : `http_${status}`;
}

/** Turns whatever Nest's HttpException carried (a string, Nest's {statusCode,message,error}, or ours) into our body. */
function bodyOfHttpException(e: HttpException): ApiErrorBody {
  const status = e.getStatus();
  const res = e.getResponse();
  if (typeof res === 'string') return { error: codeOfStatus(status), message: res };
  const r = res as { error?: unknown; message?: unknown; statusCode?: unknown };
  const message = Array.isArray(r.message) ? r.message.join('; ') : typeof r.message === 'string' ? r.message : e.message;
  // Nest's own exceptions put a human title ("Not Found") in `error`; ours put a code.
  if (typeof r.error === 'string' && /^[a-z][a-z0-9_]*$/.test(r.error)) {
    const { statusCode: _drop, ...rest } = r as Record<string, unknown>;
    return { ...rest, error: r.error, message };
  }
  return { error: codeOfStatus(status), message };
}

/**
 * Every error leaves as JSON `{ error, message }`. Anything unexpected is logged here with its
 * stack and answered with a generic 500, so a stack trace or a SQL fragment never reaches a client.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly log = new Logger('api');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    let status: number;
    let body: ApiErrorBody;
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      body = bodyOfHttpException(exception);
    } else if (exception instanceof MalformedBodyError) {
      status = 400;
      body = { error: 'malformed_body', message: exception.message, ...(exception.at ? { line: exception.at.line, column: exception.at.column } : {}) };
    } else if (isExposable(exception)) {
      status = exception.status;
      body = { error: exception.type ? exception.type.replace(/[^a-z0-9]+/gi, '_').toLowerCase() : codeOfStatus(status), message: exception.message };
    } else {
      status = 500;
      body = { error: 'internal_error', message: 'internal error; the api log has the details' };
      this.log.error((exception as Error)?.stack ?? String(exception));
    }
    if (status >= 500 && exception instanceof HttpException) this.log.error(exception.stack ?? exception.message);
    if (res.headersSent) return;
    // Set explicitly: a route that declared another type (the markdown report) may have set it already.
    res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
    res.json(body);
  }
}
