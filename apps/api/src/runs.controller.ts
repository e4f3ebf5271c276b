import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { parseQuery, RunListQuery } from './query-params';
import { RunQueryService } from './run-query.service';
import { RunSubmissionService } from './run-submission.service';

@Controller('v1/runs')
export class RunsController {
  constructor(
    private readonly submission: RunSubmissionService,
    private readonly runs: RunQueryService,
  ) {}

  /** Body: the project config, as JSON or as YAML text. */
  @Post()
  @HttpCode(202)
  async submit(@Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const run = await this.submission.submit(body);
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
