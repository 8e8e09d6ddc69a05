// Prints the surviving and uncovered mutants of the last run (artifacts/mutation/mutation.json).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('artifacts/mutation/mutation.json', 'utf8'));
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const lines = source.split('\n');
  for (const m of mutants.filter((mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage')) {
    const line = lines[m.location.start.line - 1].trim();
    console.log(`${m.status} ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${JSON.stringify(m.replacement)}\n    ${line}`);
  }
}
