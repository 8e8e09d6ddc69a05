/**
 * `npm run contract`: the contract kit in one command (docs/contract-testing.md). Starts a fresh
 * demo service on a free port (scripts/demo/run.ts), turns generated/openapi.yaml into a Postman
 * collection with contract-kit/portman/portman-config.json (Portman, offline: a local document and a
 * local configuration), runs it with newman against the demo with the demo's variables, stops the
 * demo, and exits with newman's status. Arguments after `--` go to newman
 * (e.g. `npm run contract -- --reporters cli,junit`). The collection is left in artifacts/contract/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'artifacts', 'contract');

/** A tool of the kit: node_modules/.bin, else KIT_TOOLS_DIR (a folder of such binaries). */
function tool(name: string): string {
  const candidates = [path.join(ROOT, 'node_modules', '.bin', name)];
  if (process.env.KIT_TOOLS_DIR) candidates.push(path.join(process.env.KIT_TOOLS_DIR, name));
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`\`${name}\` was not found: run npm ci (or set KIT_TOOLS_DIR)`);
  return found;
}

/** Runs a tool in OUT: Portman leaves its working files in ./tmp/ of the folder it runs in. */
function run(file: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: OUT, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Starts the demo and resolves with its namespace URL once it has printed it. */
function startDemo(environmentFile: string): Promise<{ demo: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const demo = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo/run.ts', '--env', environmentFile], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    demo.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /demo service ready: (\S+)/.exec(output);
      if (ready) resolve({ demo, url: ready[1] });
    });
    demo.on('close', (code) => reject(new Error(`the demo stopped (${code}) before it was ready:\n${output}`)));
  });
}

async function main(): Promise<number> {
  fs.mkdirSync(OUT, { recursive: true });
  const collection = path.join(OUT, 'collection.json');
  const environment = path.join(OUT, 'demo.postman_environment.json');
  const portman = tool('portman');
  const newman = tool('newman');
  const converted = await run(portman, [
    '--local', path.join(ROOT, 'generated/openapi.yaml'),
    '--portmanConfigFile', path.join(ROOT, 'contract-kit/portman/portman-config.json'),
    '--output', collection,
    '--baseUrl', '{{baseUrl}}',
  ]); // prettier-ignore
  if (converted !== 0) return converted;
  const { demo, url } = await startDemo(environment);
  try {
    console.log(`running the collection against ${url}`);
    return await run(newman, ['run', collection, '--environment', environment, ...process.argv.slice(2)]);
  } finally {
    demo.removeAllListeners('close');
    demo.kill('SIGTERM');
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`contract: ${(err as Error).message}`);
    process.exit(1);
  },
);
