import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { principalOf } from './bearer-auth.middleware';
import { RunControlService } from './run-control.service';

@Controller('v1/runs/:id')
export class RunControlController {
  constructor(private readonly control: RunControlService) {}

  /** 202: a `run.cancel` job is on its way; the run stops between steps and ends `cancelled`. 409 if it has already ended. */
  @Post('cancel')
  @HttpCode(202)
  async cancel(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const r = await this.control.cancel(id);
    res.setHeader('Location', r.links.self);
    return r;
  }

  /** Body: `{ gate, decision: approve|reject, note?, edits?: { criteria: [{ id?, text }] } }`. Needs the approve role; 409 unless the run waits at that gate. */
  @Post('approvals')
  @HttpCode(202)
  async approve(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const r = await this.control.approve(id, body, principalOf(res));
    res.setHeader('Location', r.links.self);
    return r;
  }

  /** Body: `{ question_id: "Q1", answer }`. 404 for a question the run does not have, 409 for one answered already. */
  @Post('answers')
  @HttpCode(202)
  async answer(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const r = await this.control.answer(id, body, principalOf(res));
    res.setHeader('Location', r.links.self);
    return r;
  }

  /** Body (optional JSON): `{ from?: Stage, caps?: { max_calls?, max_tokens?, … } }`. 409 unless halted, needs_input or failed. */
  @Post('resume')
  @HttpCode(202)
  async resume(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const r = await this.control.resume(id, body);
    res.setHeader('Location', r.links.self);
    return r;
  }
}
