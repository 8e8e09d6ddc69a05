/**
 * `npm run cluster`: starts a three-node Galera cluster on this machine (galera.ts), prints one
 * DATABASE_URL per node, and keeps it running until Ctrl-C, which stops every node and removes its data.
 */
import { startCluster } from './galera.js';

const cluster = await startCluster({ log: (message) => console.log(message) });
console.log(`\nthree nodes synced (data in ${cluster.folder}); one service process per node:\n`);
for (const url of cluster.urls) console.log(`  DATABASE_URL=${url}`);
console.log('\nCtrl-C stops the cluster and removes its data.');

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the nodes one at a time`);
  cluster.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
