import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RunEventsService } from './run-events.service';

@Controller('v1/runs/:id')
export class RunEventsController {
  constructor(private readonly events: RunEventsService) {}

  /**
   * SSE: the run's events from the log after `Last-Event-ID` (or `?after=`), then live, each
   * frame's id its sequence; ends after a terminal event. The response is written by hand
   * (`@Res()`), so nothing here may return a value for Nest to send.
   */
  @Get('events')
  async stream(
    @Param('id') id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query() query: Record<string, unknown>,
    @Res() res: Response,
  ): Promise<void> {
    await this.events.open(id, lastEventId, query, res);
  }
}
