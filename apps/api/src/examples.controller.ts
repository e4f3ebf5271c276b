import { Controller, Get, Inject } from '@nestjs/common';
import type { ExampleProject } from './examples-catalogue';

export const EXAMPLES = Symbol('EXAMPLES');

/** The shipped example projects New run offers, each ready to post as it is (examples-catalogue.ts). */
@Controller('v1/examples')
export class ExamplesController {
  constructor(@Inject(EXAMPLES) private readonly examples: ExampleProject[]) {}

  @Get()
  list(): ExampleProject[] {
    return this.examples;
  }
}
