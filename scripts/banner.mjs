// Prepends the DO-NOT-EDIT banner to a generated file (used by `npm run generate`).
import fs from 'node:fs';

const file = process.argv[2];
const banner = '// DO NOT EDIT: generated from openapi/ (bundled into generated/openapi.yaml) by `npm run generate` (openapi-typescript).\n';
const text = fs.readFileSync(file, 'utf8');
if (!text.startsWith(banner)) fs.writeFileSync(file, banner + text);
