/**
 * A three-node MariaDB Galera cluster on this machine, for people (`npm run cluster`) and for the
 * opt-in cluster tests (test/helpers/cluster.ts). Each node is a `mariadbd` with its own data
 * directory, socket and ports under one temporary folder; the first node bootstraps the cluster, the
 * others join it by rsync SST. Nothing here touches the MariaDB on 3306 or reads /etc/mysql: every
 * node gets `--defaults-file` as its first option (mariadbd reads /etc/mysql/my.cnf otherwise).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';

export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';
const FOLDER_PREFIX = 'tec-galera-';

export interface ClusterOptions {
  /** The first node's SQL port; the others take the next two (default 3411, 3412, 3413). */
  sqlPort?: number;
  /** The first node's group-communication port; node n uses base + 10·n, IST base + 10·n + 1, SST + 2. */
  gcommPort?: number;
  /** The database created for the service (default `tec`). */
  database?: string;
  /** Progress messages (default: none). */
  log?: (message: string) => void;
}

export interface GaleraNode {
  name: string;
  sqlPort: number;
  gcommPort: number;
  datadir: string;
  defaultsFile: string;
  /** The running mariadbd, or undefined once it has stopped. */
  process: ChildProcess | undefined;
}

export interface GaleraCluster {
  /** The temporary folder holding every node's data, configuration, socket and error log. */
  folder: string;
  nodes: GaleraNode[];
  /** One `mysql://` URL per node, on the same database. */
  urls: string[];
  /** Stops the nodes one at a time (last first) and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
  /** Kills one node at once (SIGKILL), as a crash would; resolves when it has exited. */
  kill(node: GaleraNode): Promise<void>;
  /**
   * Starts a killed node again from the position its data holds (`--wsrep-recover`, then
   * `--wsrep-start-position`), so it catches up by IST from a donor's cache rather than by a full SST;
   * resolves when it is synced.
   */
  rejoin(node: GaleraNode): Promise<void>;
}

/**
 * Starts the cluster and resolves when `wsrep_cluster_size` is 3 on every node. A failure on the way
 * stops whatever had started and removes the folder, so nothing is left running.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<GaleraCluster> {
  const sqlPort = options.sqlPort ?? 3411;
  const gcommPort = options.gcommPort ?? 4567;
  const database = options.database ?? 'tec';
  const log = options.log ?? (() => undefined);

  checkPrerequisites();
  reapAbandonedClusters(log);
  const nodes: GaleraNode[] = [0, 1, 2].map((n) => ({
    name: `node${n + 1}`,
    sqlPort: sqlPort + n,
    gcommPort: gcommPort + 10 * n,
    datadir: '',
    defaultsFile: '',
    process: undefined,
  }));
  for (const port of nodes.flatMap((node) => [node.sqlPort, node.gcommPort, node.gcommPort + 1, node.gcommPort + 2])) {
    if (await portInUse(port)) throw new Error(`port ${port} is in use: another cluster is running, or choose other ports`);
  }

  const folder = fs.mkdtempSync(path.join(os.tmpdir(), FOLDER_PREFIX));
  // Who owns the folder: a later start removes the folders of owners that died without stopping.
  fs.writeFileSync(path.join(folder, 'owner.pid'), String(process.pid));
  fs.chmodSync(folder, 0o755);
  const members = nodes.map((node) => `127.0.0.1:${node.gcommPort}`).join(',');
  for (const node of nodes) {
    node.datadir = path.join(folder, node.name);
    node.defaultsFile = path.join(folder, `${node.name}.cnf`);
    fs.mkdirSync(node.datadir);
    // rsync's SST daemon, started as root, writes as `nobody`: it must reach and fill the joiners' folders.
    if (process.getuid?.() === 0) fs.chmodSync(node.datadir, 0o777);
    fs.writeFileSync(node.defaultsFile, nodeSettings(node, folder, members));
  }

  let stopped = false;
  const onExit = () => killNow(nodes, folder);
  process.once('exit', onExit);
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    // One at a time, last first, so the first node is the last one standing (safe to bootstrap).
    for (const node of [...nodes].reverse()) await stopNode(node);
    fs.rmSync(folder, { recursive: true, force: true });
  };

  try {
    log(`installing the first node's system tables in ${nodes[0].datadir}`);
    installSystemTables(nodes[0]);
    log(`bootstrapping ${nodes[0].name} on port ${nodes[0].sqlPort}`);
    await startNode(nodes[0], folder, { bootstrap: true, log });
    await createServiceUser(nodes[0], folder, database);
    // The joiners start empty and receive the first node's state by SST, one after the other (two
    // joiners asking the one donor at once would wait on each other anyway).
    for (const node of nodes.slice(1)) {
      log(`joining ${node.name} on port ${node.sqlPort} (rsync SST)`);
      await startNode(node, folder, { bootstrap: false, log });
    }
    await waitForClusterSize(nodes, 3);
  } catch (err) {
    // Every node's error log, since the cause is often on another node (a failed SST is the donor's).
    const logs = nodes.map((node) => `--- ${node.name}.err ---\n${tail(path.join(folder, `${node.name}.err`))}`).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
  }
  const kill = async (node: GaleraNode) => {
    const child = node.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stopsAsked.add(child);
    child.kill('SIGKILL');
    await exited;
  };
  const rejoin = async (node: GaleraNode) => {
    if (node.process) throw new Error(`${node.name} is running`);
    const position = recoverPosition(node, folder);
    log(`${node.name} rejoins from ${position} (IST)`);
    await startNode(node, folder, { bootstrap: false, startPosition: position, log });
  };
  return { folder, nodes, urls: nodes.map((node) => nodeUrl(node, database)), stop, kill, rejoin };
}

/**
 * The last position a stopped node's data holds: `mariadbd --wsrep-recover` reads it from InnoDB,
 * writes `WSREP: Recovered position: <uuid>:<seqno>` to the error log and exits.
 */
function recoverPosition(node: GaleraNode, folder: string): string {
  const errorLog = path.join(folder, `${node.name}.err`);
  const logged = readText(errorLog).length;
  const result = spawnSync('/usr/sbin/mariadbd', [`--defaults-file=${node.defaultsFile}`, '--wsrep-recover'], { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${node.name}: --wsrep-recover failed (${result.status}): ${tail(errorLog)}`);
  const found = /WSREP: Recovered position: ?([0-9a-f-]+:-?\d+)/.exec(readText(errorLog).slice(logged));
  if (!found) throw new Error(`${node.name}: --wsrep-recover named no position: ${tail(errorLog)}`);
  return found[1];
}

/** The URL the service uses for one node: a TCP user without password, created at bootstrap. */
export function nodeUrl(node: GaleraNode, database: string): string {
  return `mysql://root@127.0.0.1:${node.sqlPort}/${database}`;
}

/** Runs one query on a node over TCP and returns its rows. */
export async function queryNode<T = Record<string, unknown>>(node: GaleraNode, sql: string): Promise<T[]> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: node.sqlPort, user: 'root', connectTimeout: 2000 });
  try {
    const [rows] = await connection.query(sql);
    return rows as T[];
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/** A node's global status variable (e.g. `wsrep_local_cert_failures`), as text. */
export async function nodeStatus(node: GaleraNode, variable: string): Promise<string | undefined> {
  const rows = await queryNode<{ Value: string }>(node, `SHOW GLOBAL STATUS LIKE '${variable.replace(/[^a-z_]/gi, '')}'`);
  return rows[0]?.Value;
}

function checkPrerequisites(): void {
  const missing = [
    ['mariadbd', fs.existsSync('/usr/sbin/mariadbd')],
    ['mariadb-install-db', spawnSync('mariadb-install-db', ['--help'], { stdio: 'ignore' }).error === undefined],
    [`galera-4 (${GALERA_PROVIDER})`, fs.existsSync(GALERA_PROVIDER)],
    ['rsync (SST)', spawnSync('rsync', ['--version'], { stdio: 'ignore' }).error === undefined],
  ]
    .filter(([, present]) => !present)
    .map(([name]) => name);
  if (missing.length) throw new Error(`cannot start a Galera cluster: missing ${missing.join(', ')}`);
}

/**
 * The node's whole configuration. The ports that Galera would otherwise share between nodes on one
 * host are set per node: group communication, IST (`ist.recv_addr`) and SST (`wsrep_sst_receive_address`).
 */
function nodeSettings(node: GaleraNode, folder: string, members: string): string {
  const settings = {
    // mariadbd refuses to run as root unless told to (CI and this machine run as root).
    ...(process.getuid?.() === 0 ? { user: 'root' } : {}),
    datadir: node.datadir,
    socket: path.join(folder, `${node.name}.sock`),
    'pid-file': path.join(folder, `${node.name}.pid`),
    'log-error': path.join(folder, `${node.name}.err`),
    port: node.sqlPort,
    'bind-address': '127.0.0.1',
    'skip-name-resolve': 'ON',
    // Small footprint: three nodes share a small machine.
    innodb_buffer_pool_size: '64M',
    innodb_log_file_size: '32M',
    performance_schema: 'OFF',
    max_connections: 200,
    // The durability comes from replication to the other nodes: no fsync per commit.
    innodb_flush_log_at_trx_commit: 2,
    'character-set-server': 'utf8mb4',
    'collation-server': 'utf8mb4_unicode_ci',
    // Galera's requirements.
    binlog_format: 'ROW',
    default_storage_engine: 'InnoDB',
    innodb_autoinc_lock_mode: 2,
    wsrep_on: 'ON',
    wsrep_provider: GALERA_PROVIDER,
    wsrep_cluster_name: 'tec_cluster',
    wsrep_cluster_address: `gcomm://${members}`,
    wsrep_node_name: node.name,
    wsrep_node_address: `127.0.0.1:${node.gcommPort}`,
    wsrep_node_incoming_address: `127.0.0.1:${node.sqlPort}`,
    wsrep_provider_options: `"gmcast.listen_addr=tcp://127.0.0.1:${node.gcommPort};ist.recv_addr=127.0.0.1:${node.gcommPort + 1};gcache.size=64M"`,
    wsrep_sst_method: 'rsync',
    wsrep_sst_receive_address: `127.0.0.1:${node.gcommPort + 2}`,
    wsrep_slave_threads: 2,
  };
  return `[mariadbd]\n${Object.entries(settings)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n')}\n`;
}

function installSystemTables(node: GaleraNode): void {
  const result = spawnSync(
    'mariadb-install-db',
    ['--no-defaults', `--datadir=${node.datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...(process.getuid?.() === 0 ? ['--user=root'] : [])],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`mariadb-install-db failed: ${result.stderr || result.stdout}`);
}

/** Starts one node and resolves when it is synced with the cluster and accepts queries over TCP. */
async function startNode(
  node: GaleraNode,
  folder: string,
  { bootstrap, startPosition, log }: { bootstrap: boolean; startPosition?: string; log: (message: string) => void },
): Promise<void> {
  // --defaults-file must come first, or mariadbd reads /etc/mysql/my.cnf as well.
  const args = [`--defaults-file=${node.defaultsFile}`, ...(bootstrap ? ['--wsrep-new-cluster'] : []), ...(startPosition ? [`--wsrep-start-position=${startPosition}`] : [])];
  // Its own process group: a Ctrl-C in the terminal reaches only the harness, which stops the nodes in order.
  const child = spawn('/usr/sbin/mariadbd', args, { stdio: 'ignore', detached: true });
  node.process = child;
  child.once('exit', (code, signal) => {
    if (node.process === child) node.process = undefined;
    // A node that stops without being asked to (a crash, an abort after a lost quorum) says why only
    // in its error log, which goes with the folder: show its end now.
    if (!stopsAsked.has(child)) log(`${node.name} exited by itself (${signal ?? `code ${code}`}); its error log ends:\n${tail(path.join(folder, `${node.name}.err`), 150)}`);
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (!node.process) throw new Error(`${node.name} exited while starting`);
    if (Date.now() > deadline) throw new Error(`${node.name} did not become synced within 120 s`);
    const state = await socketQuery(node, folder, "SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'").catch(() => undefined);
    if (state?.[0]?.Value === 'Synced') return;
    await sleep(250);
  }
}

/**
 * The service's TCP user and database. `root@localhost` may be socket-only, so root gets a TCP
 * account on 127.0.0.1 without a password (loopback only: the nodes listen on 127.0.0.1).
 * Galera replicates both statements to the nodes that join later.
 */
async function createServiceUser(node: GaleraNode, folder: string, database: string): Promise<void> {
  await socketQuery(node, folder, "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''");
  await socketQuery(node, folder, "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION");
  await socketQuery(node, folder, `CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
}

async function socketQuery(node: GaleraNode, folder: string, sql: string): Promise<Array<Record<string, string>>> {
  const connection = await mysql.createConnection({ socketPath: path.join(folder, `${node.name}.sock`), user: 'root', connectTimeout: 1000 });
  try {
    const [rows] = await connection.query(sql);
    return rows as Array<Record<string, string>>;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

async function waitForClusterSize(nodes: GaleraNode[], size: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const sizes = await Promise.all(nodes.map((node) => nodeStatus(node, 'wsrep_cluster_size').catch(() => undefined)));
    if (sizes.every((value) => Number(value) === size)) return;
    if (Date.now() > deadline) throw new Error(`wsrep_cluster_size is ${sizes.join('/')}, not ${size} on every node`);
    await sleep(250);
  }
}

/** SIGTERM, then SIGKILL if the node has not stopped within 30 s. */
async function stopNode(node: GaleraNode): Promise<void> {
  const child = node.process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  stopsAsked.add(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** The node processes the harness itself stopped or killed: any other exit is unexpected. */
const stopsAsked = new WeakSet<ChildProcess>();

/** The last resort when the owning process exits without stopping the cluster: nothing may outlive it. */
function killNow(nodes: GaleraNode[], folder: string): void {
  for (const node of nodes) {
    if (node.process) stopsAsked.add(node.process);
    node.process?.kill('SIGKILL');
  }
  fs.rmSync(folder, { recursive: true, force: true });
}

/**
 * Removes clusters whose owner died without stopping them (a test runner killed with SIGKILL): their
 * nodes are killed by the pids in their pid files, and their folders removed.
 */
function reapAbandonedClusters(log: (message: string) => void): void {
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (!entry.startsWith(FOLDER_PREFIX)) continue;
    const folder = path.join(os.tmpdir(), entry);
    const owner = Number(readText(path.join(folder, 'owner.pid')));
    if (owner && processAlive(owner)) continue;
    for (const file of fs.readdirSync(folder).filter((name) => /^node\d\.pid$/.test(name))) {
      const pid = Number(readText(path.join(folder, file)));
      if (pid && processAlive(pid) && isMariadbd(pid)) {
        log(`stopping node ${file} (pid ${pid}) of an abandoned cluster in ${folder}`);
        process.kill(pid, 'SIGKILL');
        // Its ports are free once it is gone.
        const deadline = Date.now() + 5000;
        while (processAlive(pid) && Date.now() < deadline) spawnSync('sleep', ['0.1']);
      }
    }
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function isMariadbd(pid: number): boolean {
  return readText(`/proc/${pid}/comm`).trim() === 'mariadbd';
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function tail(file: string, lines = 40): string {
  return readText(file).split('\n').slice(-lines).join('\n');
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
