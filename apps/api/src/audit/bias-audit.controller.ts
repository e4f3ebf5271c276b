import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { BiasAudit } from '@roundtable/contracts';
import { principalOf } from '../bearer-auth.middleware';
import { scopeOf } from '../team-scope';
import { BiasAuditService } from './bias-audit.service';

/**
 * The bias audit across recorded runs (issue 25 §3). A read: any token (the bearer middleware
 * gives GETs to read tokens, as for every route), over its own team's runs only (issue 26).
 */
@Controller('v1/audit')
export class BiasAuditController {
  constructor(private readonly audit: BiasAuditService) {}

  /** `?project=<name>`: only that project's runs. The newest 2000 runs at most (scope.truncated says when more matched). */
  @Get('bias')
  bias(@Query() query: unknown, @Res({ passthrough: true }) res: Response): Promise<BiasAudit> {
    return this.audit.audit(query, scopeOf(principalOf(res)));
  }
}
