// The BullMQ 5.65.1 side of bench/run-drain: adds N small jobs to a fresh queue, then times a
// Worker with a no-op processor from its start to the N-th completion. Prints one JSON line.
// Usage: node drain.mjs PORT JOBS CONCURRENCY
import { Queue, Worker } from 'bullmq';

const [port, jobs, concurrency] = process.argv.slice(2).map(Number);
const connection = { host: '127.0.0.1', port };
const name = `peer-${process.pid}-${Date.now()}`;
const queue = new Queue(name, { connection });
const data = { to: 'user@example.com', n: 0 };
for (let from = 0; from < jobs; from += 1000) {
  const chunk = [];
  for (let n = from; n < Math.min(jobs, from + 1000); n++) {
    chunk.push({ name: 'send', data: { ...data, n }, opts: { removeOnComplete: true } });
  }
  await queue.addBulk(chunk);
}
let done = 0;
let finish;
const finished = new Promise((resolve) => { finish = resolve; });
const started = process.hrtime.bigint();
const worker = new Worker(name, async () => {}, { connection, concurrency, autorun: false });
worker.on('completed', () => {
  if (++done === jobs) {
    finish(process.hrtime.bigint());
  }
});
worker.run();
const ended = await finished;
await worker.close();
await queue.obliterate({ force: true });
await queue.close();
const seconds = Number(ended - started) / 1e9;
console.log(JSON.stringify({ jobs, concurrency, seconds, jobsPerSecond: Math.round(jobs / seconds) }));
