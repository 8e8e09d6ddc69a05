/**
 * `npm run -s api:diff`: prints what changed in the API since the last released document
 * (openapi/released/openapi.yaml) and exits 1 on a breaking change without a raised major.
 *
 *   npm run -s api:diff -- [RELEASED] [CURRENT]   default openapi/released/openapi.yaml generated/openapi.yaml
 *
 * It reads the bundle in generated/, so run `npm run generate` after editing openapi/ first (the
 * document test fails on a stale bundle anyway). docs/api-versioning.md says what counts as breaking.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { compareDocuments, formatReport } from './compare.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [released = 'openapi/released/openapi.yaml', current = 'generated/openapi.yaml'] = process.argv.slice(2);
const read = (file: string): Record<string, unknown> => YAML.parse(fs.readFileSync(path.resolve(root, file), 'utf8')) as Record<string, unknown>;
const report = compareDocuments(read(released), read(current));
process.stdout.write(`${formatReport(report)}\n`);
process.exitCode = report.passes ? 0 : 1;
