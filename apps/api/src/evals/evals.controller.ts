import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { principalOf } from '../bearer-auth.middleware';
import { scopeOf, submitterOf } from '../team-scope';
import { EvalReads } from './eval-reads';
import { EvalsService } from './evals.service';

/**
 * Evaluations (issue 25): a suite's tasks run under several configurations and scored. POST
 * needs a write token, reads a read token (the bearer middleware, by method, as for every route).
 */
@Controller('v1/evals')
export class EvalsController {
  constructor(
    private readonly evals: EvalsService,
    private readonly reads: EvalReads,
  ) {}

  /** Body: EvalRequest (contracts). 201 with the eval's detail; its runs are queued. */
  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const { id } = await this.evals.create(body, submitterOf(res));
    res.setHeader('Location', `/v1/evals/${id}`);
    return this.reads.detail(id);
  }

  /** Newest first; `?suite=<name>`. */
  @Get()
  list(@Query() query: unknown, @Res({ passthrough: true }) res: Response) {
    return this.reads.list(query, scopeOf(principalOf(res)));
  }

  @Get(':id')
  detail(@Param('id') id: string) {
    return this.reads.detail(id);
  }

  /** Pass rate against cost, one point per configuration with its 95 % interval (libs/workflow evalPlotSvg). */
  @Get(':id/plot.svg')
  @Header('Content-Type', 'image/svg+xml; charset=utf-8')
  plot(@Param('id') id: string) {
    return this.reads.plot(id);
  }
}
