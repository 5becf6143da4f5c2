// The BullMQ 5.65.1 side of bench/run-drain: adds N small jobs to a fresh queue, then times a
// Worker with a no-op processor from its start to the N-th completion, and reads from the server
// what the drain cost it (main-thread CPU and script calls, from INFO, before and after the drain).
// Prints one JSON line. Usage: node drain.mjs PORT JOBS CONCURRENCY
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
const client = await queue.client;
const field = (text, re) => Number((text.match(re) || [0, 0])[1]);
const serverWork = async () => {
  const cpu = await client.info('cpu');
  const stats = await client.info('commandstats');
  return {
    cpu: field(cpu, /used_cpu_user_main_thread:([\d.]+)/) + field(cpu, /used_cpu_sys_main_thread:([\d.]+)/),
    scripts: field(stats, /cmdstat_evalsha:calls=(\d+)/) + field(stats, /cmdstat_eval:calls=(\d+)/),
  };
};
let done = 0;
let finish;
const finished = new Promise((resolve) => { finish = resolve; });
const before = await serverWork();
const started = process.hrtime.bigint();
const worker = new Worker(name, async () => {}, { connection, concurrency, autorun: false });
worker.on('completed', () => {
  if (++done === jobs) {
    finish(process.hrtime.bigint());
  }
});
worker.run();
const ended = await finished;
const after = await serverWork();
await worker.close();
await queue.obliterate({ force: true });
await queue.close();
const seconds = Number(ended - started) / 1e9;
console.log(JSON.stringify({
  jobs, concurrency, seconds, jobsPerSecond: Math.round(jobs / seconds),
  serverCpuUsPerJob: ((after.cpu - before.cpu) * 1e6) / jobs,
  scriptCallsPerJob: (after.scripts - before.scripts) / jobs,
}));
