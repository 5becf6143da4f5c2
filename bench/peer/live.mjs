// The BullMQ 5.65.1 side of bench/run-live-bullmq: the real v1 clients live beside a migration, then the check of
// every job they made. Three modes, sharing DIR (one file a kind of event, a line an id):
//   node live.mjs setup PORT QUEUE BACKLOG DIR FLOWS   adds BACKLOG jobs of the mix below and FLOWS flows (a parent, two children)
//   node live.mjs run PORT QUEUE RATE DIR        a Queue adding RATE jobs a second, a Worker and an editor, until DIR/stop exists
//   node live.mjs check PORT QUEUE DIR           prints one JSON line of what became of every job added; exit 1 on a lost or doubled one
import { Queue, Worker, FlowProducer } from 'bullmq';
import IORedis from 'ioredis';
import fs from 'node:fs';

const [mode, portText, name, third, fourth, fifth] = process.argv.slice(2);
const port = Number(portText);
const dir = mode === 'check' ? third : fourth;
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const note = (kind, line) => fs.appendFileSync(`${dir}/${kind}`, `${line}\n`);
const read = (kind) => (fs.existsSync(`${dir}/${kind}`) ? fs.readFileSync(`${dir}/${kind}`, 'utf8').split('\n').filter(Boolean) : []);
const below = (n) => Math.floor(Math.random() * n);
let made = 0;

// One add of the mix: plain mostly; delayed an hour (none comes due in a round), prioritized, LIFO, a custom id, a
// dedup id shared by a few adds (BullMQ answers the first job's id to the others); one in ten retried on failure.
function job(tag) {
  const n = made++;
  const kind = below(100);
  const opts = {};
  if (kind < 10) opts.delay = 3_600_000;
  else if (kind < 20) opts.priority = 1 + below(20);
  else if (kind < 25) opts.lifo = true;
  else if (kind < 30) opts.jobId = `${tag}-c${n}`;
  else if (kind < 35) opts.deduplication = { id: `${tag}-d${below(50)}` };
  if (below(10) === 0) {
    opts.attempts = 3;
    opts.backoff = { type: 'fixed', delay: 500 };
  }
  return { name: 'j', data: { n, tag, pad: 'x'.repeat(below(200)) }, opts };
}

async function setup(backlog, flowCount) {
  fs.mkdirSync(dir, { recursive: true });
  const queue = new Queue(name, { connection });
  for (let from = 0; from < backlog; from += 500) {
    const chunk = [];
    for (let i = from; i < Math.min(backlog, from + 500); i++) chunk.push(job('b'));
    (await queue.addBulk(chunk)).forEach((j) => note('added', j.id));
  }
  const flows = new FlowProducer({ connection });
  for (let i = 0; i < flowCount; i++) {
    const tree = await flows.add({ name: 'p', queueName: name, data: { flow: i }, children: [
      { name: 'c', queueName: name, data: { flow: i, child: 1 } }, { name: 'c', queueName: name, data: { flow: i, child: 2 } }] });
    note('added', tree.job.id);
    tree.children.forEach((c) => note('added', c.job.id));
  }
  await flows.close();
  await queue.close();
}

async function run(rate) {
  const queue = new Queue(name, { connection });
  const worker = new Worker(name, async (j) => {
    await new Promise((resolve) => setTimeout(resolve, below(20)));
    if (j.data.pad !== undefined && j.data.pad.length % 17 === 0) throw new Error('a planned failure');
  }, { connection, concurrency: 4 });
  worker.on('completed', (j) => note('completed', j.id));
  worker.on('failed', (j) => j && j.attemptsMade >= (j.opts.attempts || 1) && note('failed', j.id));
  worker.on('error', (e) => note('worker-errors', String(e.message).slice(0, 200)));
  const editor = setInterval(async () => {
    try {
      const waiting = await queue.getWaiting(0, 20);
      const j = waiting[below(waiting.length)];
      if (j) {
        const what = below(20);
        if (what < 6) await j.updateData({ ...j.data, edited: Date.now() });
        else if (what < 12) await j.updateProgress(below(100));
        else if (what < 19) await j.log(`a line at ${Date.now()}`);
        else if (await j.remove().then(() => true, () => false)) note('removed', j.id);
      }
    } catch (e) {
      note('edit-errors', String(e.message).slice(0, 200));
    }
  }, 50);
  const started = Date.now();
  let sent = 0;
  while (!fs.existsSync(`${dir}/stop`)) {
    for (const due = Math.floor(((Date.now() - started) / 1000) * rate); sent < due; sent++) {
      const spec = job('p');
      queue.add(spec.name, spec.data, spec.opts).then((j) => note('added', j.id), (e) => note('refused', String(e.message).slice(0, 200)));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  clearInterval(editor);
  await new Promise((resolve) => setTimeout(resolve, 500)); // the adds under way answer
  await worker.close();
  await queue.close();
}

// Every job BullMQ said it added: retired v1 (tombstoned) → exactly one v2 row (listed once, or a flow parent
// awaiting its children), or finished by the v1 worker (completed: no row; failed for good: a dead row at most);
// v1 not retired → its hash is still there unless the v1 worker finished it.
async function check() {
  const redis = new IORedis(connection);
  const completed = new Set(read('completed'));
  const failed = new Set(read('failed'));
  const removed = new Set(read('removed'));
  const tombstoned = (await redis.hget(`bull:${name}:meta`, 'version')) === 'echomq:2.0.0-migrated';
  const listed = new Map();
  const sets = [`emq:{${name}}:pending`, `emq:{${name}}:schedule`, `emq:{${name}}:dead`, ...await redis.keys(`emq:{${name}}:g:*:pending`)];
  for (const set of sets) {
    for (const id of await redis.zrange(set, 0, -1)) listed.set(id, (listed.get(id) || []).concat(set));
  }
  const counts = { tombstoned, added: 0, inV2: 0, finishedInV1: 0, removedInV1: removed.size, removedAndInV2: 0, lost: 0, doubled: 0,
    refusedAdds: read('refused').length, workerErrors: read('worker-errors').length, editErrors: read('edit-errors').length };
  const problems = [];
  for (const id of new Set(read('added'))) {
    counts.added++;
    const finished = completed.has(id) ? 'completed' : failed.has(id) ? 'failed' : null;
    counts.finishedInV1 += finished ? 1 : 0;
    if (!tombstoned) {
      if (!finished && !removed.has(id) && !(await redis.exists(`bull:${name}:${id}`))) {
        counts.lost++;
        problems.push(`${id}: its v1 hash is gone, though v1 was not retired and its worker did not finish it`);
      }
      continue;
    }
    const branded = await redis.hget(`{emq}:migration:${name}`, `v1:${id}`);
    const state = branded && await redis.hget(`emq:{${name}}:job:${branded}`, 'state');
    const sets = (branded && listed.get(branded)) || [];
    counts.inV2 += state ? 1 : 0;
    counts.removedAndInV2 += removed.has(id) && state ? 1 : 0;
    if (sets.length > 1 || (finished === 'completed' && state) || (finished === 'failed' && state && state !== 'dead')) {
      counts.doubled++;
      problems.push(`${id}: ${finished ? `${finished} by the v1 worker, ` : ''}v2 row ${branded} ${state} listed in ${sets.join(', ') || 'no set'}`);
    } else if (!finished && !removed.has(id) && (!state || (sets.length === 0 && state !== 'awaiting_children'))) {
      counts.lost++;
      problems.push(`${id}: not finished by the v1 worker, v2 ${branded ? `row ${branded} ${state || 'missing'}` : 'holds no id'}`);
    }
  }
  console.log(JSON.stringify({ ...counts, problems: problems.slice(0, 10) }));
  await redis.quit();
  return counts.lost || counts.doubled ? 1 : 0;
}

const code = mode === 'setup' ? await setup(Number(third), Number(fifth)) : mode === 'run' ? await run(Number(third)) : await check();
process.exit(code || 0);
