import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { principalOf } from './bearer-auth.middleware';
import { PlaygroundService } from './playground.service';

/** A run's call tried again in the playground, outside the run (playground.service.ts). */
@Controller('v1/runs/:id/calls/:callId/playground')
export class PlaygroundController {
  constructor(private readonly playground: PlaygroundService) {}

  /** Body: `{ messages?, provider?, model? }`, each left out taken from the call. 202: the call is queued. */
  @Post()
  @HttpCode(202)
  tryAgain(@Param('id') id: string, @Param('callId') callId: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    return this.playground.tryAgain(id, callId, body, principalOf(res));
  }

  /** The call's playground tries, oldest first, each with its reply once the provider-worker has answered. */
  @Get()
  list(@Param('id') id: string, @Param('callId') callId: string) {
    return this.playground.list(id, callId);
  }
}
