/**
 * The stack's floor: the least a request through our stack can cost. A minimal Express 5 +
 * express-openapi-validator app with a tiny inline OpenAPI document (one path, `GET /items/{id}`)
 * answering a primary-key lookup through Knex (`SELECT * FROM posts WHERE id = ?`) on the same
 * database and with the same Knex settings as the service (src/db/knex.ts). No logging, no auth,
 * no response validation.
 *
 *   PORT=18081 DATABASE_URL=sqlite:bench/results/db/bench-100000.sqlite node --import tsx scripts/bench/floor.ts
 *
 * run.ts starts it as a separate process and reports every scenario's throughput as a ratio to it.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { openDatabase } from '../../src/db/knex.js';

const json = { 'application/json': { schema: { type: 'object' } } };
const document = {
  openapi: '3.1.0',
  info: { title: 'floor', version: '1.0.0' },
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
        responses: { '200': { description: 'The post', content: json }, '404': { description: 'No such post', content: json } },
      },
    },
  },
};

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 18081);
  const { db } = openDatabase(process.env.DATABASE_URL ?? 'sqlite:data/events.sqlite');
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.use(OpenApiValidator.middleware({ apiSpec: document as never, validateRequests: true, validateResponses: false }));
  app.get('/items/:id', async (req: Request, res: Response) => {
    const row = await db('posts').where('id', Number(req.params.id)).first();
    if (row) res.json(row);
    else res.status(404).json({ code: 'not_found' });
  });
  app.use((err: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ code: 'error', message: err.message });
  });
  const server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Compile the validator now, not on the first measured request.
  await fetch(`http://127.0.0.1:${port}/items/1`)
    .then((res) => res.arrayBuffer())
    .catch(() => undefined);
  process.stdout.write(`floor listening on http://127.0.0.1:${port}\n`);
  const stop = () => server.close(() => db.destroy().then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`floor failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
