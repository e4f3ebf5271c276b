import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { parseServiceEnv } from '@roundtable/contracts';
import { runService } from '@roundtable/queues';
import { ApiEnv } from './api.env';
import { createApiApp } from './create-api-app';

runService('api', async () => {
  const env = parseServiceEnv('api', ApiEnv);
  const app = await createApiApp(env);
  await app.listen(env.PORT);
  new Logger('api').log(`listening on ${await app.getUrl()} (queues at /admin/queues, prefix ${env.QUEUE_PREFIX})`);
  return app;
});
