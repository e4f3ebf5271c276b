import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { submitterOf } from './team-scope';
import { RunForkService } from './run-fork.service';

@Controller('v1/runs/:id')
export class RunForkController {
  constructor(private readonly forks: RunForkService) {}

  /**
   * Body: `{ from: Stage, edits?: <part of a project file> }`. 202: a new run, queued, that copies
   * the original's calls before `from` and runs live from there; `Location` is the new run. 409
   * while the original has not ended; 400 names the field (a stage it made no call at, an edit the
   * schema or the operator's policy refuses).
   */
  @Post('fork')
  @HttpCode(202)
  async fork(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const run = await this.forks.fork(id, body, submitterOf(res));
    res.setHeader('Location', run.links.self);
    return run;
  }
}
