import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { principalOf } from './bearer-auth.middleware';
import { idempotencyKeyOf, requestHashOf } from './idempotency-key';
import { parseQuery, RunListQuery } from './query-params';
import { RunQueryService } from './run-query.service';
import { RunSubmissionService } from './run-submission.service';
import { scopeOf, submitterOf } from './team-scope';

/** `?queue_unserved=true|false` (default false): queue a run whose providers no live worker serves. */
function parseQueueUnserved(v: unknown): boolean {
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw ApiError.badRequest('invalid_query', 'queue_unserved is true or false (true: accept the run even if no live provider-worker serves a provider it uses; it waits for one)');
}

@Controller('v1/runs')
export class RunsController {
  constructor(
    private readonly submission: RunSubmissionService,
    private readonly runs: RunQueryService,
  ) {}

  /** Body: the project config, as JSON or as YAML text. An Idempotency-Key header makes a retried submit answer with the first run. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: unknown, @Query('queue_unserved') queueUnserved: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const queue = parseQueueUnserved(queueUnserved);
    const key = idempotencyKeyOf(req.headers['idempotency-key']);
    const claim = key === null ? undefined : { principal: principalOf(res)?.name ?? 'anonymous', key, requestHash: requestHashOf(body) };
    const by = submitterOf(res);
    const run = await this.submission.submit(body, { queueUnserved: queue, claim, submittedBy: by.name, team: by.team, sees: by.sees });
    res.setHeader('Location', run.links.self);
    return run;
  }

  /**
   * The reply stays an array (the CLI and the workbench read it as one); when there are more runs,
   * `X-Next-Cursor` carries the cursor and `Link` the next page's URL (rel="next").
   */
  @Get()
  async list(@Query() query: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const page = await this.runs.list(parseQuery(RunListQuery, query), scopeOf(principalOf(res)));
    if (page.nextCursor) {
      const next = new URL(req.originalUrl, 'http://api.invalid');
      next.searchParams.set('cursor', page.nextCursor);
      res.setHeader('X-Next-Cursor', page.nextCursor);
      res.setHeader('Link', `<${next.pathname}${next.search}>; rel="next"`);
    }
    return page.runs;
  }

  @Get(':id')
  get(@Param('id') id: string) {
    return this.runs.get(id);
  }

  @Get(':id/report')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  report(@Param('id') id: string) {
    return this.runs.report(id);
  }
}
