import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { principalOf } from './bearer-auth.middleware';
import { idempotencyKeyOf, requestHashOf } from './idempotency-key';
import { parseQuery, RunListQuery } from './query-params';
import { RunQueryService } from './run-query.service';
import { RunSubmissionService } from './run-submission.service';

@Controller('v1/runs')
export class RunsController {
  constructor(
    private readonly submission: RunSubmissionService,
    private readonly runs: RunQueryService,
  ) {}

  /** Body: the project config, as JSON or as YAML text. An Idempotency-Key header makes a retried submit answer with the first run. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const key = idempotencyKeyOf(req.headers['idempotency-key']);
    const claim = key === null ? undefined : { principal: principalOf(res)?.name ?? 'anonymous', key, requestHash: requestHashOf(body) };
    const run = await this.submission.submit(body, claim);
    res.setHeader('Location', run.links.self);
    return run;
  }

  @Get()
  list(@Query() query: unknown) {
    return this.runs.list(parseQuery(RunListQuery, query));
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
