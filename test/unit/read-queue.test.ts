import assert from 'node:assert/strict';
import type { NextFunction, Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import { readQueue, readsInFlightFor } from '../../src/http/read-queue.js';

/** Reads wait in a queue, writes go first (src/http/read-queue.ts, docs/contract.md §17). */
describe('the read queue: a few reads start per iteration of the event loop, writes at once', () => {
  const iteration = () => new Promise((resolve) => setImmediate(resolve));

  /** A request of `method` whose start (the middleware calling next) is written to `started` as `name`. */
  function arrive(queue: ReturnType<typeof readQueue>, started: string[], name: string, method = 'GET', res: Partial<Response> = {}, destroyed = false, query = {}) {
    const path = name.startsWith('/') ? name : '/wp-json/tribe/events/v1/events';
    const search = new URLSearchParams(query).toString();
    const req = { method, socket: { destroyed }, query, path, url: search ? `${path}?${search}` : path } as unknown as Request;
    const next: NextFunction = () => void started.push(name);
    const response = Object.assign(new EventEmitter(), { headersSent: false, writableEnded: false, ...res });
    queue.middleware(req, response as unknown as Response, next);
    return response;
  }

  it('starts at most `perIteration` reads in one iteration, the rest in later iterations in arrival order, and writes at once', async () => {
    const queue = readQueue(2);
    const started: string[] = [];
    for (const name of ['r1', 'r2', 'r3', 'r4', 'r5']) arrive(queue, started, name);
    arrive(queue, started, 'post', 'POST');
    arrive(queue, started, 'patch', 'PATCH');
    arrive(queue, started, 'delete', 'DELETE');
    assert.deepEqual(started, ['r1', 'r2', 'post', 'patch', 'delete']);
    assert.equal(queue.waiting(), 3);
    await iteration();
    assert.deepEqual(started.slice(5), ['r3', 'r4']);
    // A read arriving now waits behind the ones already waiting, whatever this iteration's count.
    arrive(queue, started, 'r6', 'HEAD');
    await iteration();
    assert.deepEqual(started.slice(7), ['r5', 'r6']);
    assert.equal(queue.waiting(), 0);
  });

  it('counts afresh in the next iteration when nothing waited', async () => {
    const queue = readQueue(1);
    const started: string[] = [];
    arrive(queue, started, 'a');
    await iteration();
    arrive(queue, started, 'b', 'OPTIONS');
    assert.deepEqual(started, ['a', 'b']);
  });

  it('keeps at most `inFlightAtMost` reads unanswered; an answer (finish or close, once) lets the next start', async () => {
    const queue = readQueue(10, 2);
    const started: string[] = [];
    const first = arrive(queue, started, 'r1');
    arrive(queue, started, 'r2');
    arrive(queue, started, 'r3');
    arrive(queue, started, 'r4');
    // A long poll waits on purpose and takes no place; a write and a probe never wait.
    arrive(queue, started, 'poll', 'GET', {}, false, { wait: '10' });
    arrive(queue, started, 'post', 'POST');
    arrive(queue, started, '/readyz');
    await iteration();
    assert.deepEqual(started, ['r1', 'r2', 'poll', 'post', '/readyz']);
    first.emit('finish');
    first.emit('close');
    await iteration();
    await iteration();
    // One place came free (finish and close of one answer count once).
    assert.deepEqual(started.slice(5), ['r3']);
    assert.equal(queue.waiting(), 1);
  });

  it('bounds reads in flight below the pool on MySQL, leaving connections for writes; not on SQLite', () => {
    assert.equal(readsInFlightFor('mysql', 10), 6);
    assert.equal(readsInFlightFor('mysql', 3), 1);
    assert.equal(readsInFlightFor('sqlite', 1), Infinity);
  });

  it('does not start a waiting read that was answered meanwhile or whose client has gone', async () => {
    const queue = readQueue(1);
    const started: string[] = [];
    arrive(queue, started, 'first');
    arrive(queue, started, 'timed out', 'GET', { headersSent: true });
    arrive(queue, started, 'ended', 'GET', { writableEnded: true });
    arrive(queue, started, 'gone', 'GET', {}, true);
    arrive(queue, started, 'last');
    // The ones not started take no place: the next read starts in the very next iteration.
    await iteration();
    assert.deepEqual(started, ['first', 'last']);
  });
});
