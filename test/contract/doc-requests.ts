import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/openapi/document.js';
import { NS } from '../helpers/app.js';

/**
 * The requests README.md and docs/*.md show, read from the files themselves so a new example is
 * checked without anyone listing it: every `curl` command of a fenced block (with its `\` continuation
 * lines), every inline code span that starts with `curl `, and inline `GET /path?query` spans and URLs
 * under the namespace. Placeholders (`ID`, `CURSOR`, `SECRET`…)
 * are left as written; the test fills them in from real records.
 */
export interface DocRequest {
  /** `docs/api-guide.md:320`. */
  where: string;
  method: string;
  /** The URL's part after the namespace, with the query: `/events/ID`. */
  path: string;
  /** `login:secret` of `-u`, as written. */
  user?: string;
  headers: Record<string, string>;
  /** `-d`'s data, as written. */
  data?: string;
}

/** Splits a command line as a POSIX shell would, for the quoting the docs use (no expansions but `$(…)` kept as text). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; line[j] !== '"'; j++) word += line[j];
      i = j;
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (c === '#' && !inWord) {
      break; // a comment
    } else if (c === '|' && !inWord) {
      break; // a pipe to another command: the request is what curl sends
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** `$API/events`, `http://127.0.0.1:8080/wp-json/tribe/events/v1/events` → `/events`. */
function namespacePath(url: string): string | undefined {
  if (url.startsWith('$API')) return url.slice('$API'.length) || '/';
  const at = url.indexOf(NS);
  return at === -1 ? undefined : url.slice(at + NS.length) || '/';
}

function parseCurl(command: string, where: string): DocRequest | undefined {
  const words = shellWords(command);
  const request: DocRequest = { where, method: 'GET', path: '', headers: {} };
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === '-X') request.method = words[++i];
    else if (word === '-u') request.user = words[++i];
    else if (word === '-H') {
      const header = words[++i];
      const colon = header.indexOf(':');
      request.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data' || word === '--data-binary') {
      request.data = words[++i];
      if (request.method === 'GET') request.method = 'POST';
    } else if (!word.startsWith('-')) {
      const found = namespacePath(word);
      if (found !== undefined) request.path = found;
    }
  }
  // `curl -u ed@example.org:'…' ...` shows a way to authenticate, not a request: it names no URL.
  return request.path === '' ? undefined : request;
}

/** Every request of README.md and docs/*.md, in file order. */
export function docRequests(): DocRequest[] {
  const root = projectRoot();
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const found: DocRequest[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
    let fenced = false;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trimStart().startsWith('```')) {
        fenced = !fenced;
        continue;
      }
      if (fenced && line.trimStart().startsWith('curl ')) {
        let command = line.trim();
        const first = i;
        while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i].trim()}`;
        const request = parseCurl(command, `${file}:${first + 1}`);
        if (request) found.push(request);
      } else if (!fenced) {
        for (const match of line.matchAll(/`(curl [^`]+)`/g)) {
          const request = parseCurl(match[1], `${file}:${i + 1}`);
          if (request) found.push(request);
        }
        // `GET /changes?after=CURSOR&…` and full URLs under the namespace (`https://…/events.ics?…`);
        // a route's name (`GET /events/{id}`) or an elided URL (`…/v1/...`) is no request.
        for (const match of line.matchAll(/`GET (\/[^`\s{}]*\?[^`\s{}]*)`|`(https?:\/\/[^`\s{}]+)`/g)) {
          const url = match[1] ?? namespacePath(match[2]);
          if (url !== undefined && !url.includes('...')) found.push({ where: `${file}:${i + 1}`, method: 'GET', path: url, headers: {} });
        }
      }
    }
  }
  return found;
}
