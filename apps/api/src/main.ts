import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { parseServiceEnv } from '@roundtable/contracts';
import { runService } from '@roundtable/queues';
import { ApiEnv } from './api.env';
import { createApiApp } from './create-api-app';

runService('api', async () => {
  const env = parseServiceEnv('api', ApiEnv);
  const app = await createApiApp(env);
  await app.listen(env.PORT);
  const { port } = app.getHttpServer().address() as AddressInfo;
  new Logger('api').log(`listening on http://localhost:${port} (Bull Board at /admin/queues, queue prefix ${env.QUEUE_PREFIX})`);
  return app;
});
