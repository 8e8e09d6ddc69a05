import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NS, testApp } from '../helpers/app.js';
import type { Config } from '../../src/core/config.js';
import { recordingListener } from '../contract/coverage.js';
import { answerCheckingListener } from '../contract/answers.js';

export interface RunningService {
  /** The namespace URL, as `/doc` reports it in `servers[0].url`. */
  baseUrl: string;
  close: () => Promise<void>;
}

/**
 * The test app listening on an ephemeral loopback port, so SDKs talk to it over real HTTP with
 * `fetch`. Its responses are recorded for the contract coverage check and key-checked like supertest's.
 */
export async function startService(overrides: Partial<Config> = {}): Promise<RunningService> {
  const { app } = await testApp(overrides);
  const server = http.createServer(recordingListener(answerCheckingListener(app)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${NS}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
