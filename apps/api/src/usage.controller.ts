import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { UsageReport } from '@roundtable/contracts';
import { principalOf } from './bearer-auth.middleware';
import { parseQuery, UsageQuery } from './query-params';
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
    const p = principalOf(res);
    // `admin` is the role that sees every team (issue 26's first bullet adds it to API_TOKENS).
    const reader: UsageReader = !p || p.open || (p.role as string) === 'admin' ? 'all' : { team: p.team };
    return this.usage.report(q, reader);
  }
}
