import assert from 'node:assert/strict';
import type { NextFunction, Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { readTurns, readsInFlightFor } from '../../src/http/read-turns.js';

/** Reads take turns, writes go first (src/http/read-turns.ts, docs/contract.md §17). */
describe('read turns: a few reads start per turn of the event loop, writes at once', () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  /** A request of `method` whose start (the middleware calling next) is written to `started` as `name`. */
  function arrive(turns: ReturnType<typeof readTurns>, started: string[], name: string, method = 'GET', res: Partial<Response> = {}, destroyed = false, query = {}) {
    const path = name.startsWith('/') ? name : '/wp-json/tribe/events/v1/events';
    const search = new URLSearchParams(query).toString();
    const req = { method, socket: { destroyed }, query, path, url: search ? `${path}?${search}` : path } as unknown as Request;
    const next: NextFunction = () => void started.push(name);
    const response = Object.assign(new EventEmitter(), { headersSent: false, writableEnded: false, ...res });
    turns.middleware(req, response as unknown as Response, next);
    return response;
  }

  it('starts at most `perTurn` reads in one turn, the rest in later turns in arrival order, and writes at once', async () => {
    const turns = readTurns(2);
    const started: string[] = [];
    for (const name of ['r1', 'r2', 'r3', 'r4', 'r5']) arrive(turns, started, name);
    arrive(turns, started, 'post', 'POST');
    arrive(turns, started, 'patch', 'PATCH');
    arrive(turns, started, 'delete', 'DELETE');
    assert.deepEqual(started, ['r1', 'r2', 'post', 'patch', 'delete']);
    assert.equal(turns.waiting(), 3);
    await turn();
    assert.deepEqual(started.slice(5), ['r3', 'r4']);
    // A read arriving now waits behind the ones already waiting, whatever this turn's count.
    arrive(turns, started, 'r6', 'HEAD');
    await turn();
    assert.deepEqual(started.slice(7), ['r5', 'r6']);
    assert.equal(turns.waiting(), 0);
  });

  it('counts afresh in the next turn when nothing waited', async () => {
    const turns = readTurns(1);
    const started: string[] = [];
    arrive(turns, started, 'a');
    await turn();
    arrive(turns, started, 'b', 'OPTIONS');
    assert.deepEqual(started, ['a', 'b']);
  });

  it('keeps at most `inFlightAtMost` reads unanswered; an answer (finish or close, once) lets the next start', async () => {
    const turns = readTurns(10, 2);
    const started: string[] = [];
    const first = arrive(turns, started, 'r1');
    arrive(turns, started, 'r2');
    arrive(turns, started, 'r3');
    arrive(turns, started, 'r4');
    // A long poll waits on purpose and takes no place; a write and a probe never wait.
    arrive(turns, started, 'poll', 'GET', {}, false, { wait: '10' });
    arrive(turns, started, 'post', 'POST');
    arrive(turns, started, '/readyz');
    await turn();
    assert.deepEqual(started, ['r1', 'r2', 'poll', 'post', '/readyz']);
    first.emit('finish');
    first.emit('close');
    await turn();
    await turn();
    // One place came free (finish and close of one answer count once).
    assert.deepEqual(started.slice(5), ['r3']);
    assert.equal(turns.waiting(), 1);
  });

  it('bounds reads in flight below the pool on MySQL, leaving connections for writes; not on SQLite', () => {
    assert.equal(readsInFlightFor('mysql', 10), 6);
    assert.equal(readsInFlightFor('mysql', 3), 1);
    assert.equal(readsInFlightFor('sqlite', 1), Infinity);
  });

  it('does not start a waiting read that was answered meanwhile or whose client has gone', async () => {
    const turns = readTurns(1);
    const started: string[] = [];
    arrive(turns, started, 'first');
    arrive(turns, started, 'timed out', 'GET', { headersSent: true });
    arrive(turns, started, 'ended', 'GET', { writableEnded: true });
    arrive(turns, started, 'gone', 'GET', {}, true);
    arrive(turns, started, 'last');
    // The ones not started take no turn: the next read starts in the very next turn.
    await turn();
    assert.deepEqual(started, ['first', 'last']);
  });
});
