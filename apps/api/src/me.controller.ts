import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DEFAULT_TEAM } from './api-tokens';
import { principalOf } from './bearer-auth.middleware';
import type { Me } from '@roundtable/contracts';

/**
 * Who the presented token is: the workbench asks once, and shows the act buttons (cancel,
 * resume, appeal) only to a write token or an open API. The door has already answered 401 for
 * a token it does not hold; this never says anything about other tokens.
 */
@Controller('v1/me')
export class MeController {
  @Get()
  me(@Res({ passthrough: true }) res: Response): Me {
    const p = principalOf(res);
    if (!p || p.open) return { name: null, role: 'open', team: DEFAULT_TEAM };
    return { name: p.name, role: p.role, team: p.team };
  }
}
