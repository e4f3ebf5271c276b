import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RunAppealService } from './run-appeal.service';

@Controller('v1/runs/:id')
export class RunAppealController {
  constructor(private readonly appeals: RunAppealService) {}

  /**
   * Body: `{ evidence: string[] (≥1), judges: JudgeRole[] (≥1) }`. 202: a `run.appeal` job is on
   * its way and appeal_completed will follow on the run's events. 409 unless the run is a
   * finished panel that has not been appealed; 400 names the field that is wrong.
   */
  @Post('appeal')
  @HttpCode(202)
  async appeal(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const r = await this.appeals.appeal(id, body);
    res.setHeader('Location', r.links.self);
    return r;
  }
}
