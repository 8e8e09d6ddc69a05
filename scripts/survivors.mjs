// Prints the surviving and uncovered mutants of a run (artifacts/mutation/mutation.json, or the report
// named as the argument), then each file's score: killed (and timed out) / (those + survived + no coverage).
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2] ?? 'artifacts/mutation/mutation.json', 'utf8'));
const scores = [];
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const lines = source.split('\n');
  for (const m of mutants.filter((mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage')) {
    const line = lines[m.location.start.line - 1].trim();
    console.log(`${m.status} ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${JSON.stringify(m.replacement)}\n    ${line}`);
  }
  const count = (...statuses) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  const score = detected + undetected === 0 ? 'n/a' : `${((100 * detected) / (detected + undetected)).toFixed(1)} %`;
  scores.push(`${file}: ${score} (${detected} killed, ${count('Survived')} survived, ${count('NoCoverage')} no coverage, ${count('Ignored')} ignored)`);
}
console.log(scores.join('\n'));
