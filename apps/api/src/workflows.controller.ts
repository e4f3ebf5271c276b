import { Controller, Get } from '@nestjs/common';
import type { WorkflowSummary } from '@roundtable/contracts';
import { WORKFLOWS } from '@roundtable/workflow';

/** The workflows this deployment runs, each with its stages and its shape (the run page's stage graph), from the registry. */
@Controller('v1/workflows')
export class WorkflowsController {
  @Get()
  list(): WorkflowSummary[] {
    return Object.values(WORKFLOWS).map((m) => ({ name: m.name, stages: [...m.stages], graph: m.graph }));
  }
}
