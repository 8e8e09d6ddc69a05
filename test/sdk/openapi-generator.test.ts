import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { skipUnlessJava } from './java.js';
import { run } from './tools.js';

/**
 * The other languages: `npm run sdk -- python` and `npm run sdk -- java` (openapi-generator 4.3.1)
 * still generate from the document, and the shared schemas (`EventCreate` = the required fields +
 * `EventFields`, which is `PostFields` + the event's own) come out as one flat model each, with the
 * required fields required. Their dependencies cannot be fetched here, so the Java SDK is not
 * compiled; the Python one is imported and its models used when Python has urllib3, six, certifi
 * and python-dateutil.
 */
describe('the openapi-generator SDKs (npm run sdk -- python | java)', function () {
  let folder: string;

  before(function () {
    this.timeout(300_000);
    skipUnlessJava(this);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-'));
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'python', path.join(folder, 'python')]);
    run([path.join(projectRoot(), 'scripts/sdk.mjs'), 'java', path.join(folder, 'java')]);
  });

  after(() => {
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const read = (...parts: string[]) => fs.readFileSync(path.join(folder, ...parts), 'utf8');

  it('java: flat models with every shared field, the required ones required', () => {
    const model = (name: string) => read('java', 'src/main/java/org/example/tec/model', `${name}.java`);
    const eventCreate = model('EventCreate');
    for (const field of ['String title', 'String startDate', 'String endDate', 'String date', 'Integer author', 'VenueReference venue', 'CostInput cost', 'ImageReference image']) {
      assert.match(eventCreate, new RegExp(`private ${field}\\b`), field);
    }
    assert.match(eventCreate, /@ApiModelProperty\(required = true, value = "Event title\.[^"]*"\)/);
    assert.doesNotMatch(model('EventUpdate'), /required = true/);
    assert.match(model('VenueInput'), /private Integer id\b/);
    assert.match(model('VenueInput'), /private String venue\b/);
    assert.match(model('VenueInput'), /private String city\b/);
    assert.match(model('TagCreate'), /@ApiModelProperty\(required = true, value = "Term name/);
    assert.match(
      read('java', 'src/main/java/org/example/tec/api/EventsApi.java'),
      /public Event getEvent \(Integer id, String password, String ifNoneMatch, List<String> fields\)/,
    );
  });

  it('python: flat models with every shared field, the required ones required', function () {
    const eventCreate = read('python', 'tec_events_client/models/event_create.py');
    assert.match(eventCreate, /def __init__\(self, title=None, start_date=None, end_date=None, author=None, date=None/);
    assert.match(eventCreate, /Invalid value for `title`, must not be `None`/);
    const probe = spawnSync('python3', ['-c', 'import urllib3, six, certifi, dateutil'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      console.log('      (the generated Python SDK is not imported: python3 with urllib3, six, certifi and python-dateutil is missing)');
      return;
    }
    const script = [
      'import tec_events_client as t',
      "e = t.EventCreate(title='Gig', start_date='2027-01-01 20:00:00', end_date='2027-01-01 22:00:00', venue={'venue': 'Hall'})",
      "assert e.to_dict()['venue'] == {'venue': 'Hall'}",
      'try:',
      "    t.EventCreate(start_date='x', end_date='y')",
      "    raise SystemExit('title is not required')",
      'except ValueError:',
      '    pass',
      "assert 'id' in t.VenueInput.openapi_types and 'city' in t.VenueInput.openapi_types",
      "print('ok')",
    ].join('\n');
    const python = spawnSync('python3', ['-c', script], { cwd: path.join(folder, 'python'), encoding: 'utf8' });
    assert.equal(python.status, 0, `${python.stdout}${python.stderr}`);
    assert.equal(python.stdout.trim(), 'ok');
  });
});
