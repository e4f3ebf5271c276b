import { Controller, Get, Inject } from '@nestjs/common';
import { JobProducer, type RedisClient } from '@roundtable/queues';
import { INFRA } from '@roundtable/service';
import { readProviderRegistry } from './provider-registry.reader';
import { providersView } from './provider-registry.view';

/** A read door: which providers the live workers serve, so a client knows before it submits. */
@Controller('v1/providers')
export class ProvidersController {
  constructor(
    @Inject(INFRA.redis) private readonly redis: RedisClient,
    @Inject(INFRA.producer) private readonly producer: JobProducer,
  ) {}

  @Get()
  async list() {
    return providersView(await readProviderRegistry(this.redis, this.producer.prefix), this.producer);
  }
}
