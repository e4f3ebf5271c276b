import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RunRecordService } from './run-record.service';

/** GET /v1/runs/:id/verify and /export: the run's hash-chained record, checked or as one file. */
@Controller('v1/runs/:id')
export class RunRecordController {
  constructor(private readonly record: RunRecordService) {}

  @Get('verify')
  verify(@Param('id') id: string) {
    return this.record.verify(id);
  }

  /** One JSON file (attachment): `roundtable verify --file <it>` checks it with no api. */
  @Get('export')
  async export(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const file = await this.record.export(id);
    res.setHeader('Content-Disposition', `attachment; filename="${id.replace(/[^A-Za-z0-9._-]/g, '_')}.record.json"`);
    res.setHeader('Cache-Control', 'no-cache');
    return file;
  }
}
