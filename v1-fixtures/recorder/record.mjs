// Records EchoMQ v1 keyspaces (the BullMQ 5.65.1 wire) as emq-migrate fixtures.
//
//   npm install            (once, pins bullmq 5.65.1)
//   node record.mjs [outDir]   (default: the parent folder, v1-fixtures/)
//
// For every scenario it starts a scratch redis-server (redis-server from PATH, or $REDIS_SERVER)
// on a free loopback port, drives the real library or the library's own Lua scripts, dumps every
// key (type, value, TTL; binary-safe) and writes <scenario>.json with an `expect` section that
// states what a correct dry-run plan must report. Expectations come from what the recorder did
// and, for serve order, from BullMQ itself draining the queue after the dump.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash, randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { pack } from 'msgpackr';
import { Queue, Worker, FlowProducer } from 'bullmq';

const require = createRequire(import.meta.url);
const luaScripts = require('bullmq/dist/cjs/scripts/index.js');
const bullmqVersion = require('bullmq/package.json').version;
const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(process.argv[2] ?? join(here, '..'));
const redisBinary = process.env.REDIS_SERVER ?? 'redis-server';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- scratch server

async function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
    srv.on('error', rej);
  });
}

async function startServer() {
  const port = await freePort();
  const proc = spawn(redisBinary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  for (let i = 0; i < 50; i++) {
    try {
      const probe = new IORedis({ ...connection, lazyConnect: true, retryStrategy: () => null });
      await probe.connect();
      const info = await probe.info('server');
      await probe.quit();
      const version = /redis_version:(\S+)/.exec(info)[1];
      return { proc, connection, version };
    } catch {
      await sleep(100);
    }
  }
  proc.kill();
  throw new Error(`redis-server did not start on ${port}`);
}

// ---------------------------------------------------------------- dump

function enc(buf) {
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? text : { base64: buf.toString('base64') };
}

function pairs(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

async function dumpKeyspace(redis) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scanBuffer(cursor, 'COUNT', 1000);
    cursor = next.toString();
    keys.push(...batch);
  } while (cursor !== '0');
  keys.sort(Buffer.compare);
  const out = [];
  for (const key of keys) {
    const type = (await redis.type(key)).toString();
    const pttl = Number(await redis.pttl(key));
    let value;
    switch (type) {
      case 'string': value = enc(await redis.getBuffer(key)); break;
      case 'list': value = (await redis.lrangeBuffer(key, 0, -1)).map(enc); break;
      case 'set': value = (await redis.smembersBuffer(key)).sort(Buffer.compare).map(enc); break;
      case 'hash': value = pairs(await redis.callBuffer('HGETALL', key)).sort((a, b) => Buffer.compare(a[0], b[0])).map(([f, v]) => [enc(f), enc(v)]); break;
      case 'zset': value = pairs(await redis.callBuffer('ZRANGE', key, '0', '-1', 'WITHSCORES')).map(([m, s]) => [enc(m), s.toString()]); break;
      case 'stream': value = (await redis.callBuffer('XRANGE', key, '-', '+')).map(([id, fields]) => ({ id: id.toString(), fields: pairs(fields).map(([f, v]) => [enc(f), enc(v)]) })); break;
      default: throw new Error(`unsupported type ${type} at ${key}`);
    }
    out.push({ key: enc(key), type, pttl: pttl > 0 ? pttl : -1, value });
  }
  return out;
}

function writeFixture(name, server, description, keys, expect) {
  const doc = {
    format: 'emq-v1-fixture/1',
    name,
    description,
    recordedWith: { bullmq: bullmqVersion, redis: server.version, node: process.version },
    recordedAt: new Date().toISOString(),
    keys,
    expect,
  };
  const file = join(outDir, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 1) + '\n');
  console.log(`wrote ${file}: ${keys.length} keys`);
}

// ---------------------------------------------------------------- helpers

async function structureCounts(redis, base) {
  const lists = ['wait', 'paused', 'active'];
  const zsets = ['prioritized', 'delayed', 'waiting-children', 'completed', 'failed'];
  const jobs = {};
  for (const s of lists) jobs[s] = Number(await redis.llen(base + s));
  for (const s of zsets) jobs[s] = Number(await redis.zcard(base + s));
  return jobs;
}

async function zsetIds(redis, key) {
  return redis.zrange(key, 0, -1);
}

/** Lets BullMQ itself serve a queue (after a stall check and a resume) and records the order. */
async function servedOrder(connection, name, prefix = 'bull') {
  const queue = new Queue(name, { connection, prefix });
  await queue.resume();
  const worker = new Worker(name, null, { connection, prefix, lockDuration: 600000, maxStalledCount: 5, autorun: false });
  // two stall checks (the first marks, the second recovers); the throttle key is cleared between them
  const redis = new IORedis(connection);
  for (let pass = 0; pass < 2; pass++) {
    await redis.del(`${prefix}:${name}:stalled-check`);
    await worker.moveStalledJobsToWait();
  }
  await redis.quit();
  const order = [];
  for (;;) {
    const job = await worker.getNextJob('drain-token', { block: false });
    if (!job) break;
    order.push(job.id);
  }
  await worker.close();
  await queue.close();
  return order;
}

function seededHex(seed) {
  let state = createHash('sha256').update(seed).digest();
  let n = 0;
  return () => {
    state = createHash('sha256').update(state).update(String(n++)).digest();
    return state.subarray(0, 12).toString('hex');
  };
}

/** Calls one of BullMQ 5.65.1's own Lua scripts with an explicit KEYS/ARGV layout. */
async function callScript(redis, script, keys, argv) {
  return redis.eval(script.content, keys.length, ...keys, ...argv);
}

/** The v1 Elixir app's add-job argument array (F scripts.ex): prefix, custom id, name, timestamp, then nils. */
function elixirArgs(base, id, name, timestamp, parentKey = null, parentDepsKey = null, parent = null) {
  return pack([base, id, name, timestamp, parentKey, parentDepsKey, parent, null, null]);
}

function elixirKeys(base, script) {
  const k = (s) => base + s;
  switch (script) {
    case 'standard': return [k('wait'), k('paused'), k('meta'), k('id'), k('completed'), k('delayed'), k('active'), k('events'), k('marker')];
    case 'prioritized': return [k('marker'), k('meta'), k('id'), k('prioritized'), k('delayed'), k('completed'), k('active'), k('events'), k('pc')];
    case 'delayed': return [k('marker'), k('meta'), k('id'), k('delayed'), k('completed'), k('events')];
    case 'parent': return [k('meta'), k('id'), k('delayed'), k('waiting-children'), k('completed'), k('events')];
    // F scripts.ex pause/3 sends this order for both directions (spec §1.3)
    case 'pause': return [k('wait'), k('paused'), k('meta'), k('prioritized'), k('pc'), k('marker'), k('events')];
    default: throw new Error(script);
  }
}

async function elixirAdd(redis, base, kind, { id, name, data, opts, timestamp, raw }) {
  const script = { standard: luaScripts.addStandardJob, prioritized: luaScripts.addPrioritizedJob, delayed: luaScripts.addDelayedJob }[kind];
  const payload = raw ?? JSON.stringify(data);
  return callScript(redis, script, elixirKeys(base, kind), [elixirArgs(base, id, name, timestamp), payload, pack(opts)]);
}

// ---------------------------------------------------------------- scenario: Node BullMQ 5.65.1

async function recordNode(server) {
  const { connection } = server;
  const redis = new IORedis(connection);
  const orders = new Queue('orders', { connection });
  const emails = new Queue('emails', { connection });
  const flowsParent = new Queue('flows-parent', { connection });
  const flowsChild = new Queue('flows-child', { connection });

  // finished jobs first, processed by a real worker (with metrics and a stall checker)
  await orders.add('charge', { n: 1 });
  await orders.add('charge', { n: 2 });
  await orders.add('explode', { n: 3 }, { attempts: 1 });
  await orders.add('explode', { n: 4 }, { attempts: 1 });
  const processed = new Promise((res) => {
    let left = 4;
    const worker = new Worker('orders', async (job) => {
      await job.log(`processing ${job.name} #${job.data.n}`);
      if (job.name === 'explode') throw new Error(`boom ${job.data.n}`);
      return { ok: job.data.n };
    }, { connection, metrics: { maxDataPoints: 10 } });
    const done = async () => { if (--left === 0) { await worker.close(); res(); } };
    worker.on('completed', done);
    worker.on('failed', done);
  });
  await processed;

  // waiting work, in the shapes Node writes
  const fifo = [];
  fifo.push((await orders.add('ship', { text: 'plain ascii' })).id);
  fifo.push((await orders.add('ship', { text: 'héllo wörld ✓ 🚀 日本語', ctl: '\u0000\u0001\u0007\t\n\u001b\u007f' })).id);
  fifo.push((await orders.add('ship', { n: 7 }, { jobId: 'order:2024:0007' })).id);
  fifo.push((await orders.add('ship', { n: 8 }, { jobId: '0042' })).id);
  fifo.push((await orders.add('ship', { n: 9 }, { jobId: 'заказ-№9' })).id);
  const lifo = (await orders.add('urgent', { n: 10 }, { lifo: true })).id;
  const prio5 = (await orders.add('bulk', { n: 11 }, { priority: 5 })).id;
  const prio1 = (await orders.add('bulk', { n: 12 }, { priority: 1 })).id;
  const prio5b = (await orders.add('bulk', { n: 13 }, { priority: 5 })).id;
  const delayedLate = (await orders.add('later', { n: 14 }, { delay: 3600000 })).id;
  const delayedSoon = (await orders.add('later', { n: 15 }, { delay: 1200000 })).id;
  const dedupTtl = (await orders.add('once', { n: 16 }, { deduplication: { id: 'invoice-77', ttl: 3600000 } })).id;
  await orders.add('once', { n: 17 }, { deduplication: { id: 'invoice-77', ttl: 3600000 } }); // deduplicated: no job
  const dedupForever = (await orders.add('once', { n: 18 }, { deduplication: { id: 'receipt-9' } })).id;
  await orders.upsertJobScheduler('every-minute', { every: 60000 }, { name: 'tick', data: { kind: 'every' } });
  await orders.upsertJobScheduler('nightly', { pattern: '0 3 * * *' }, { name: 'report', data: { kind: 'cron' } });

  // active jobs: one with a live lock, one whose lock has expired (a stalled job)
  const liveWorker = new Worker('orders', null, { connection, lockDuration: 900000, autorun: false, name: 'node-live' });
  const stallWorker = new Worker('orders', null, { connection, lockDuration: 300, autorun: false, name: 'node-stall' });
  const activeWaitIds = await redis.lrange('bull:orders:wait', -2, -1);
  const liveJob = await liveWorker.getNextJob(`${randomUUID()}:1`, { block: false });
  const stalledJob = await stallWorker.getNextJob(`${randomUUID()}:1`, { block: false });
  await liveJob.log('started by node-live');
  await sleep(600); // the stall worker's lock expires
  await liveWorker.close(); await stallWorker.close();

  // a paused queue with a delayed job
  const mailIds = [];
  for (let i = 0; i < 3; i++) mailIds.push((await emails.add('mail', { to: `user${i}@example.com` })).id);
  await emails.pause();
  mailIds.push((await emails.add('mail', { to: 'late@example.com' })).id);
  const mailDelayed = (await emails.add('digest', { to: 'all' }, { delay: 7200000 })).id;

  // a flow across two queues: parent in flows-parent, children in both queues
  const producer = new FlowProducer({ connection });
  const flow = await producer.add({
    name: 'assemble', queueName: 'flows-parent', data: { order: 1 },
    children: [
      { name: 'part', queueName: 'flows-child', data: { part: 'a' } },
      { name: 'part', queueName: 'flows-child', data: { part: 'b' } },
      { name: 'local-part', queueName: 'flows-parent', data: { part: 'c' } },
    ],
  });
  await producer.close();
  const childWorker = new Worker('flows-child', null, { connection, autorun: false });
  const child = await childWorker.getNextJob('child-token', { block: false });
  await child.moveToCompleted({ made: child.data.part }, 'child-token', false);
  await childWorker.close();

  const queues = {};
  for (const q of ['orders', 'emails', 'flows-parent', 'flows-child']) {
    queues[q] = { prefix: 'bull', jobs: await structureCounts(redis, `bull:${q}:`) };
  }
  queues.orders.delayedOrder = await zsetIds(redis, 'bull:orders:delayed');
  queues.orders.failedOrder = await zsetIds(redis, 'bull:orders:failed');
  queues.orders.liveLocks = [liveJob.id];
  queues.orders.expiredLocks = [stalledJob.id];
  queues.orders.dedup = { 'invoice-77': { job: dedupTtl, ttl: true }, 'receipt-9': { job: dedupForever, ttl: false } };
  queues.orders.schedulers = { 'every-minute': 'every', nightly: 'pattern' };
  queues.orders.anomalies = [{ kind: 'expired-lock', key: `bull:orders:${stalledJob.id}` }];
  queues.orders.refusals = ['live-lock', 'cron-scheduler'];
  queues.orders.customIds = ['order:2024:0007', '0042', 'заказ-№9'];
  queues.orders.lifo = [lifo];
  queues.orders.prioritized = [prio1, prio5, prio5b];
  queues.orders.delayedAdded = [delayedSoon, delayedLate];
  queues.orders.activeFromWait = activeWaitIds;
  queues.emails.paused = true;
  queues.emails.delayedOrder = [mailDelayed];
  queues['flows-parent'].waitingChildren = [flow.job.id];
  queues['flows-parent'].processedChildren = [`bull:flows-child:${child.id}`];
  for (const q of ['emails', 'flows-parent', 'flows-child']) { queues[q].anomalies = []; queues[q].refusals = []; }

  const keys = await dumpKeyspace(redis);
  // the truth of serve order: BullMQ serves a copy of each queue after the dump
  for (const q of Object.keys(queues)) queues[q].serveOrder = await servedOrder(connection, q);
  await Promise.all([orders, emails, flowsParent, flowsChild].map((x) => x.close()));
  await redis.quit();
  writeFixture('node-5.65.1', server,
    'Node BullMQ 5.65.1: finished jobs with logs and metrics, FIFO/LIFO/prioritized/delayed waiting work, custom ids with colons, unicode and leading zeros, unicode and control-character payloads, dedup keys with and without TTL, an every and a cron scheduler, an active job with a live lock and one with an expired lock, a paused queue, a flow across two queues with one child completed.',
    keys, { prefixes: ['bull'], queues });
}

// ---------------------------------------------------------------- scenario: a 1 MiB payload

async function recordLarge(server) {
  const { connection } = server;
  const redis = new IORedis(connection);
  const q = new Queue('blobs', { connection });
  const big = { blob: 'x'.repeat(1024 * 1024 - 64), tail: 'ünïcödé' };
  const idBig = (await q.add('big', big)).id;
  const idSmall = (await q.add('small', { n: 1 })).id;
  const bigData = JSON.stringify(big);
  const queues = { blobs: { prefix: 'bull', jobs: await structureCounts(redis, 'bull:blobs:'), anomalies: [], refusals: [],
    payloads: { [idBig]: { bytes: Buffer.byteLength(bigData), sha256: createHash('sha256').update(bigData).digest('hex') } } } };
  const keys = await dumpKeyspace(redis);
  queues.blobs.serveOrder = await servedOrder(connection, 'blobs');
  await q.close(); await redis.quit();
  writeFixture('node-large-payload', server, `Node BullMQ 5.65.1: one job with a ${Buffer.byteLength(bigData)}-byte payload and one small job.`, keys, { prefixes: ['bull'], queues, order: [idBig, idSmall] });
}

// ---------------------------------------------------------------- scenario: the v1 Elixir app

async function recordElixir(server) {
  const { connection } = server;
  const redis = new IORedis(connection);
  const hex = seededHex('emq-v1-elixir');
  const t0 = Date.now();
  const queues = {};

  // queue "mailer": what v1 adds leave (24-hex ids, opts.pri/opts.del, shifted delayed timestamps)
  const mailer = 'bull:mailer:';
  await redis.hset(mailer + 'meta', 'opts.maxLenEvents', 10000, 'version', 'bullmq:5.65.1');
  const wait = [];
  for (let i = 0; i < 3; i++) {
    const id = hex();
    await elixirAdd(redis, mailer, 'standard', { id, name: 'deliver', data: { to: `u${i}@example.com`, i }, opts: { at: 3, attempts: 3, remove_on_complete: true }, timestamp: t0 + i });
    wait.push(id);
  }
  const lifo = hex();
  await elixirAdd(redis, mailer, 'standard', { id: lifo, name: 'deliver', data: { urgent: true }, opts: { lifo: true, at: 1 }, timestamp: t0 + 10 });
  const pri = [];
  for (const p of [5, 1, 9]) {
    const id = hex();
    await elixirAdd(redis, mailer, 'prioritized', { id, name: 'bulk', data: { p }, opts: { pri: p, at: 1 }, timestamp: t0 + 20 + p });
    pri.push({ id, priority: p });
  }
  const delayed = [];
  for (const d of [900000, 300000, 300000]) {
    const id = hex();
    const created = t0 + 30 + delayed.length;
    await elixirAdd(redis, mailer, 'delayed', { id, name: 'remind', data: { d }, opts: { del: d, at: 1 }, timestamp: created + d });
    delayed.push({ id, delay: d, created });
  }
  const nonJson = hex();
  await elixirAdd(redis, mailer, 'standard', { id: nonJson, name: 'raw', raw: Buffer.from([0x6e, 0x6f, 0x74, 0x20, 0x6a, 0x73, 0x6f, 0x6e, 0x3a, 0x20, 0xff, 0xfe, 0x00, 0x01]), opts: { at: 1 }, timestamp: t0 + 40 });
  // two jobs fetched by a v1 worker (one UUIDv4 token for all its locks); their locks expire
  const v1Worker = new Worker('mailer', null, { connection, lockDuration: 200, autorun: false, name: 'Elixir.Mailer.Worker' });
  const token = randomUUID();
  const act1 = (await v1Worker.getNextJob(token, { block: false })).id;
  const act2 = (await v1Worker.getNextJob(token, { block: false })).id;
  await v1Worker.close();
  await sleep(400);
  // a finally failed job: the fields a v1 final failure leaves, written directly (no worker involved)
  const failedId = hex();
  await elixirAdd(redis, mailer, 'standard', { id: failedId, name: 'deliver', data: { bad: true }, opts: { at: 1 }, timestamp: t0 + 50 });
  await redis.lrem(mailer + 'wait', 1, failedId);
  await redis.hset(mailer + failedId, 'failedReason', '%RuntimeError{message: "smtp down"}', 'finishedOn', t0 + 60, 'atm', 1, 'ats', 1, 'stacktrace', JSON.stringify(['lib/mailer.ex:12']));
  await redis.zadd(mailer + 'failed', t0 + 60, failedId);
  const remainingWait = await redis.lrange(mailer + 'wait', 0, -1);
  queues.mailer = {
    prefix: 'bull', jobs: await structureCounts(redis, mailer),
    // stalled active jobs (oldest activation first), then wait tail first, then prioritized by score (pc order: v1 priorities are lost in the score)
    serveOrder: [act1, act2, ...remainingWait.slice().reverse(), ...pri.map((p) => p.id)],
    priorities: Object.fromEntries(pri.map((p) => [p.id, p.priority])),
    delayedOrder: [delayed[1].id, delayed[2].id, delayed[0].id],
    delays: Object.fromEntries(delayed.map((d) => [d.id, { delay: d.delay, created: d.created, due: d.created + d.delay }])),
    failedOrder: [failedId],
    expiredLocks: [act1, act2],
    anomalies: [
      { kind: 'expired-lock', key: mailer + act1 }, { kind: 'expired-lock', key: mailer + act2 },
      { kind: 'non-json-data', key: mailer + nonJson },
    ],
    refusals: [],
  };

  // queue "notify": the pause/resume wrapper damage (spec §1.3), through pause-7.lua with F's KEYS order
  const notify = 'bull:notify:';
  await redis.hset(notify + 'meta', 'opts.maxLenEvents', 10000, 'version', 'bullmq:5.65.1');
  const notifyIds = [];
  for (let i = 0; i < 3; i++) {
    const id = hex();
    await elixirAdd(redis, notify, 'standard', { id, name: 'push', data: { i }, opts: { at: 1 }, timestamp: t0 + 70 + i });
    notifyIds.push(id);
  }
  await callScript(redis, luaScripts.pause, elixirKeys(notify, 'pause'), ['paused']);
  await callScript(redis, luaScripts.pause, elixirKeys(notify, 'pause'), ['resumed']);
  const orphan = hex();
  let addError = null;
  try {
    await elixirAdd(redis, notify, 'standard', { id: orphan, name: 'push', data: { late: true }, opts: { at: 1 }, timestamp: t0 + 80 });
  } catch (e) { addError = String(e.message).split('\n')[0]; }
  // the StalledChecker variant's leftover: a hash at the bare P:Q key (spec §1.3), written directly
  await redis.hset('bull:notify', 'opts.maxLenEvents', 10000);
  queues.notify = {
    prefix: 'bull', jobs: await structureCounts(redis, notify),
    serveOrder: notifyIds.slice(),
    addError,
    anomalies: [
      { kind: 'paused-without-flag', key: notify + 'paused' },
      { kind: 'wrong-type', key: notify + 'events' },
      { kind: 'wrong-type', key: notify + 'pc' },
      { kind: 'orphan-hash', key: notify + orphan },
      { kind: 'bare-queue-hash', key: 'bull:notify' },
    ],
    refusals: ['anomalies'],
  };

  // a queue whose name is not a valid v2 name
  const badBase = 'bull:reports 2024:';
  const badId = hex();
  await elixirAdd(redis, badBase, 'standard', { id: badId, name: 'render', data: { year: 2024 }, opts: { at: 1 }, timestamp: t0 + 90 });
  queues['reports 2024'] = { prefix: 'bull', jobs: await structureCounts(redis, badBase), serveOrder: [badId],
    anomalies: [{ kind: 'invalid-queue-name', key: badBase }], refusals: ['invalid-queue-name'] };

  const keys = await dumpKeyspace(redis);
  await redis.quit();
  writeFixture('elixir-v1', server,
    'The v1 Elixir app (EchoMQ 1.3.0) through BullMQ 5.65.1 Lua with its argument layout: 24-hex ids, opts.pri/opts.del with hash priority/delay 0, shifted delayed timestamps, prioritized scores = pc, active jobs with expired locks (v1 worker token), a failed job, non-JSON data; queue notify damaged by the pause/resume wrappers (jobs in paused without meta.paused, events a ZSET, pc a STREAM, an orphan hash after WRONGTYPE, the bare P:Q hash); a queue name with a space.',
    keys, { prefixes: ['bull'], queues });
}

// ---------------------------------------------------------------- scenario: legacy shapes, other prefixes, foreign keys, hand-made damage

async function recordLegacy(server) {
  const { connection } = server;
  const redis = new IORedis(connection);
  const t0 = Date.now();
  const queues = {};

  // another prefix, written by BullMQ itself
  const billing = new Queue('billing', { connection, prefix: 'echo' });
  const b1 = (await billing.add('invoice', { amount: 10 })).id;
  const b2 = (await billing.add('invoice', { amount: 20 })).id;
  await billing.close();
  queues.billing = { prefix: 'echo', jobs: await structureCounts(redis, 'echo:billing:'), serveOrder: [b1, b2], anomalies: [], refusals: [] };

  // BullMQ 4.x shapes, written directly (no 4.x library is involved): a `priority` zset, a `0:` marker in wait,
  // job hashes with attemptsMade / stalledCounter, a delayed job packed with the old id-counter sequence
  const old = 'bull:legacy:';
  await redis.hset(old + 'meta', 'opts.maxLenEvents', 10000);
  await redis.set(old + 'id', 3);
  for (const [id, extra] of [['1', ['attemptsMade', 2, 'stalledCounter', 1]], ['2', ['attemptsMade', 1]], ['3', []]]) {
    await redis.hset(old + id, 'name', 'legacy', 'data', JSON.stringify({ id }), 'opts', '{}', 'timestamp', t0, 'delay', id === '3' ? 60000 : 0, 'priority', 0, ...extra);
  }
  await redis.lpush(old + 'wait', '1', '0:1', '2'); // tail (served first) = 1, then marker, then 2
  await redis.zadd(old + 'priority', 0, 'ghost');
  await redis.zadd(old + 'repeat', t0 + 86400000, 'report::::0 3 * * *'); // a pre-5.10 repeatable: a long member, no hash
  await redis.zadd(old + 'delayed', (t0 + 60000) * 4096 + 3, '3');
  queues.legacy = { prefix: 'bull', jobs: await structureCounts(redis, old), serveOrder: ['1', '2'], delayedOrder: ['3'],
    attempts: { 1: 2, 2: 1, 3: 0 }, legacy: ['priority', 'marker-id'], schedulers: { 'report::::0 3 * * *': 'legacy' },
    anomalies: [], refusals: ['legacy-repeatable'] };
  queues.legacy.jobs.wait = 2; // the 0:1 marker is not a job

  // hand-made damage, one of each remaining kind
  const broken = 'bull:broken:';
  await redis.hset(broken + 'meta', 'opts.maxLenEvents', 10000);
  const job = (id, ts) => ['name', 'j', 'data', JSON.stringify({ id }), 'opts', '{}', 'timestamp', ts, 'delay', 0, 'priority', 0];
  await redis.hset(broken + 'ok', ...job('ok', t0));
  await redis.hset(broken + 'nodata', 'name', 'j', 'opts', '{}', 'timestamp', t0);
  await redis.hset(broken + 'twice', ...job('twice', t0));
  await redis.hset(broken + 'badscore', ...job('badscore', t0));
  await redis.lpush(broken + 'wait', 'ok', 'nodata', 'ghost', 'twice');
  await redis.zadd(broken + 'failed', t0, 'twice');
  await redis.zadd(broken + 'delayed', -1.5, 'badscore');
  await redis.hset(broken + 'halfprio', ...job('halfprio', t0));
  await redis.zadd(broken + 'prioritized', 1.5, 'halfprio');
  await redis.set(broken + 'strjob', 'not a hash');
  await redis.rpush(broken + 'wait', 'strjob'); // served first
  await redis.set(broken + 'sc', '1'); // a name F keys.ex defines and no script writes
  await redis.rpush(broken + 'gone:logs', 'a log line of a job whose hash was removed');
  queues.broken = { prefix: 'bull', jobs: await structureCounts(redis, broken), serveOrder: ['ok', 'nodata', 'halfprio'],
    anomalies: [
      { kind: 'hash-without-data', key: broken + 'nodata' },
      { kind: 'missing-hash', key: broken + 'ghost' },
      { kind: 'listed-twice', key: broken + 'twice' },
      { kind: 'bad-delayed-score', key: broken + 'badscore' },
      { kind: 'bad-prioritized-score', key: broken + 'halfprio' },
      { kind: 'wrong-job-type', key: broken + 'strjob' },
      { kind: 'unknown-key', key: broken + 'sc' },
      { kind: 'dangling-subkey', key: broken + 'gone:logs' },
    ],
    refusals: ['anomalies'] };

  // braced twin (echomq-go cluster mode): a disjoint queue named "{orders}"
  const twin = new Queue('{orders}', { connection });
  const tw = (await twin.add('ship', { twin: true })).id;
  await twin.close();
  queues['{orders}'] = { prefix: 'bull', jobs: await structureCounts(redis, 'bull:{orders}:'), serveOrder: [tw],
    anomalies: [{ kind: 'invalid-queue-name', key: 'bull:{orders}:' }], refusals: ['invalid-queue-name'] };

  // foreign keys: under no prefix, and under the prefix but of no queue
  await redis.set('session:7f3a', 'user=42');
  await redis.hset('cache:user:42', 'name', 'Ada');
  await redis.set('bull:stats', '17');
  await redis.rpush('bull:audit:trail', 'x');

  const keys = await dumpKeyspace(redis);
  await redis.quit();
  writeFixture('legacy-and-foreign', server,
    'Queue billing under prefix echo (BullMQ 5.65.1); hand-written BullMQ 4.x shapes (priority zset, 0: marker in wait, attemptsMade, stalledCounter, a long repeat member without a hash); hand-written damage (hash without data, id with no hash, id in two states, invalid delayed and prioritized scores, a listed id whose key is a string, an unknown key, a log list of a removed job); a braced twin queue {orders}; foreign keys inside and outside the prefix.',
    keys, { prefixes: ['bull', 'echo'], queues, foreign: ['bull:audit:trail', 'bull:stats', 'cache:user:42', 'session:7f3a'] });
}

// ---------------------------------------------------------------- main

const scenarios = { node: recordNode, large: recordLarge, elixir: recordElixir, legacy: recordLegacy };
const only = process.argv[3];
for (const [name, run] of Object.entries(scenarios)) {
  if (only && only !== name) continue;
  const server = await startServer();
  try {
    await run(server);
  } finally {
    server.proc.kill();
  }
}
