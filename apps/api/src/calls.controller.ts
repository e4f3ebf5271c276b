import { Controller, Get, Param, Query } from '@nestjs/common';
import { AgentCallsService } from './agent-calls.service';
import { CallListQuery, parseQuery } from './query-params';

@Controller('v1/runs/:id/calls')
export class CallsController {
  constructor(private readonly calls: AgentCallsService) {}

  /** Filters: role, stage, failed=true|false (errored, or a reply that did not validate). */
  @Get()
  list(@Param('id') id: string, @Query() query: unknown) {
    return this.calls.list(id, parseQuery(CallListQuery, query));
  }

  @Get(':callId')
  get(@Param('id') id: string, @Param('callId') callId: string) {
    return this.calls.get(id, callId);
  }
}
