import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ServiceOps } from '@roundtable/service';

@Controller()
export class MetricsController {
  constructor(private readonly ops: ServiceOps) {}

  /**
   * Prometheus metrics, behind the bearer door like every route but health (any role). A scraper
   * without a token uses the internal ops port instead (HEALTH_PORT), as it does for the workers.
   */
  @Get('metrics')
  async metrics(@Res() res: Response): Promise<void> {
    const { contentType, body } = await this.ops.metrics.scrape();
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(body);
  }
}
