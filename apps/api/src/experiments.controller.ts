import { Body, Controller, Get, Header, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { principalOf } from './bearer-auth.middleware';
import { scopeOf, submitterOf } from './team-scope';
import { ExperimentReads } from './experiment-reads';
import { ExperimentsService } from './experiments.service';

/**
 * Experiments (issue 24). Writes need a write token and reads a read token (the bearer
 * middleware, by method, as for every route). A preregistration is never edited: PATCH and PUT
 * exist only to refuse, with the field the body would change, so a client learns why.
 */
@Controller('v1/experiments')
export class ExperimentsController {
  constructor(
    private readonly experiments: ExperimentsService,
    private readonly reads: ExperimentReads,
  ) {}

  /** Body: the experiment file, as JSON or YAML text. 201 with the experiment (a draft's run already started). */
  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const created = await this.experiments.create(body, submitterOf(res));
    res.setHeader('Location', `/v1/experiments/${created.id}`);
    return this.reads.detail(created.id);
  }

  /** Newest first; `?project=<name>`, `?status=draft|locked|decided|rejected`. */
  @Get()
  list(@Query() query: unknown, @Res({ passthrough: true }) res: Response) {
    return this.reads.list(query, scopeOf(principalOf(res)));
  }

  @Get(':id')
  detail(@Param('id') id: string) {
    return this.reads.detail(id);
  }

  @Get(':id/report')
  @Header('Content-Type', 'text/markdown; charset=utf-8')
  report(@Param('id') id: string) {
    return this.reads.report(id);
  }

  /** Always 409: a locked preregistration is never changed; a changed copy is a new experiment. */
  @Patch(':id')
  patch(@Param('id') id: string, @Body() body: unknown) {
    return this.reads.refuseEdit(id, body);
  }

  @Put(':id')
  put(@Param('id') id: string, @Body() body: unknown) {
    return this.reads.refuseEdit(id, body);
  }

  /** 202 with { experiment_id, run_id }; 409 for a draft, a result already there, an altered preregistration or a run still live. */
  @Post(':id/run')
  @HttpCode(202)
  async run(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const started = await this.experiments.run(id, submitterOf(res));
    res.setHeader('Location', `/v1/runs/${started.run_id}`);
    return started;
  }
}
