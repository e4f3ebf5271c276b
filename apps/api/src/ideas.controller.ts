import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { principalOf } from './bearer-auth.middleware';
import { scopeOf, submitterOf } from './team-scope';
import { IdeaExperimentService } from './idea-experiment.service';
import { IdeaHandoffService } from './idea-handoff.service';
import { IdeasService, versionParam } from './ideas.service';

/**
 * Ideas as versioned worksheets and their evidence ledger (issue 23). Writes need a write token
 * (the bearer middleware); every route takes data only. There is no route that changes or deletes
 * a version or a ledger entry: a version is edited by making the next one, an entry corrected by
 * one that supersedes it.
 */
@Controller('v1/ideas')
export class IdeasController {
  constructor(
    private readonly ideas: IdeasService,
    private readonly handoffs: IdeaHandoffService,
    private readonly experiments: IdeaExperimentService,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const idea = await this.ideas.create(body, submitterOf(res));
    res.setHeader('Location', `/v1/ideas/${idea.id}`);
    return idea;
  }

  /** `?similar_to=<id>`: the ideas most like that one, best first (full-text search over worksheets and panel summaries). */
  @Get()
  list(@Query('similar_to') similarTo: unknown, @Res({ passthrough: true }) res: Response) {
    return this.ideas.list(similarTo, scopeOf(principalOf(res)));
  }

  @Get(':id')
  detail(@Param('id') id: string) {
    return this.ideas.detail(id);
  }

  @Get(':id/versions')
  versions(@Param('id') id: string) {
    return this.ideas.versions(id);
  }

  /** An edit: the changed fields over `base_version` (default the latest) make the next version; 409 when the named base is locked. */
  @Post(':id/versions')
  @HttpCode(201)
  async edit(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const v = await this.ideas.edit(id, body, principalOf(res)?.name ?? 'anonymous');
    res.setHeader('Location', `/v1/ideas/${id}/versions/${v.version}`);
    return v;
  }

  @Get(':id/versions/:n')
  version(@Param('id') id: string, @Param('n') n: string) {
    return this.ideas.version(id, versionParam('n', n));
  }

  /** An edit aimed at version n: copy-on-write like POST …/versions with base_version n (201, the new version), 409 when n is locked. */
  @Put(':id/versions/:n')
  @HttpCode(201)
  async editVersion(@Param('id') id: string, @Param('n') n: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const v = await this.ideas.edit(id, body, principalOf(res)?.name ?? 'anonymous', versionParam('n', n));
    res.setHeader('Location', `/v1/ideas/${id}/versions/${v.version}`);
    return v;
  }

  @Get(':id/diff')
  diff(@Param('id') id: string, @Query('from') from: unknown, @Query('to') to: unknown) {
    return this.ideas.diff(id, from, to);
  }

  @Post(':id/evidence')
  @HttpCode(201)
  logEvidence(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.ideas.logEvidence(id, body, principalOf(res)?.name ?? 'anonymous');
  }

  @Get(':id/evidence')
  evidence(@Param('id') id: string) {
    return this.ideas.evidence(id);
  }

  /** A done panel's GO (or ITERATE's experiment) handed on as a build run: 201 with the run, its objective, requirements and source; 409 for a NO-GO or a panel not done. */
  @Post(':id/handoff')
  @HttpCode(201)
  async handoff(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const run = await this.handoffs.handoff(id, body, submitterOf(res));
    res.setHeader('Location', run.links.self);
    return run;
  }

  /** The panel's recommended experiment drafted as an experiment (issue 24): 201 with { experiment_id, run_id }; the draft's run has started; 409 when the idea has no done panel. */
  @Post(':id/experiment')
  @HttpCode(201)
  async experiment(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const created = await this.experiments.draft(id, body, submitterOf(res));
    res.setHeader('Location', `/v1/experiments/${created.experiment_id}`);
    return created;
  }
}
