import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
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

  /** Body (optional JSON): `{ from?: Stage, caps?: { max_calls?, max_tokens?, … } }`. 409 unless halted, needs_input or failed. */
  @Post('resume')
  @HttpCode(202)
  async resume(@Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const r = await this.control.resume(id, body);
    res.setHeader('Location', r.links.self);
    return r;
  }
}
