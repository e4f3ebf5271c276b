import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { UsageReport } from '@roundtable/contracts';
import { principalOf } from './bearer-auth.middleware';
import { parseQuery, UsageQuery } from './query-params';
import { scopeOf } from './team-scope';
import { UsageService, type UsageReader } from './usage.service';

/**
 * GET /v1/usage?team=&project=&since= (issue 26): spending by team and project, with the
 * operator's caps across runs beside it. A token sees its own team only; an admin (and an open
 * API, which has no teams to keep apart) sees every team.
 */
@Controller('v1/usage')
export class UsageController {
  constructor(@Inject(UsageService) private readonly usage: UsageService) {}

  @Get()
  async get(@Query() query: unknown, @Res({ passthrough: true }) res: Response): Promise<UsageReport> {
    const q = parseQuery(UsageQuery, query);
    // The same scope as every list's (team-scope.ts): admin and an open API see every team.
    const sees = scopeOf(principalOf(res));
    const reader: UsageReader = sees === null ? 'all' : { team: sees };
    return this.usage.report(q, reader);
  }
}
