import { CallHandler, ExecutionContext, HttpException, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { Observable, finalize, tap } from 'rxjs';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_RUN_ID,
  markFailed,
  tracer,
} from '@roundtable/observability';

/** Reads change nothing and enqueue nothing: they get no span (a polling client would fill a trace store). */
const UNTRACED = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A server span around each write request (`POST /v1/runs`, resume, cancel, appeal), active while
 * its handler runs, so the jobs it enqueues (through the outbox) carry its trace context: the
 * submission's span is the root of the run's trace. The run's id goes on the span
 * (`roundtable.run.id`, to search by), and a submission logs its trace id next to the run id.
 * With tracing off the span is the no-op one and nothing is logged.
 *
 * An interceptor rather than express middleware: it runs after the body parsers, whose stream
 * callbacks would lose an async context set before them.
 */
@Injectable()
export class RequestSpanInterceptor implements NestInterceptor {
  private readonly log = new Logger('api');

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<Request>();
    if (UNTRACED.has(req.method)) return next.handle();
    const route = (req.route as { path?: string } | undefined)?.path ?? req.path;
    const span = tracer().startSpan(`${req.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method, [ATTR_HTTP_ROUTE]: route },
    });
    const runId = typeof req.params?.id === 'string' ? req.params.id : undefined;
    if (runId) span.setAttribute(ATTR_RUN_ID, runId);
    let status: number | undefined;
    // Nest binds the handler's async context when handle() is called: inside context.with, the span is active in it.
    return context.with(trace.setSpan(context.active(), span), () => next.handle()).pipe(
      tap({
        next: (body) => {
          const created = !runId && body && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
          if (typeof created === 'string') {
            span.setAttribute(ATTR_RUN_ID, created);
            if (span.isRecording()) this.log.log(`run ${created}: trace ${span.spanContext().traceId}`);
          }
        },
        error: (e: unknown) => {
          status = e instanceof HttpException ? e.getStatus() : 500;
          if (status >= 500) markFailed(span, e);
        },
      }),
      finalize(() => {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status ?? ctx.switchToHttp().getResponse<Response>().statusCode);
        span.end();
      }),
    );
  }
}
