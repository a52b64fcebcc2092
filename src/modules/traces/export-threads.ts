import path from 'node:path';
import Piscina from 'piscina';
import { config } from '../../config/config';
import type { ExportEncoding } from './otlp';
import { exportError, type ThreadReply } from './export-thread';
import { acceptedWindow } from './span-partitions';
import { MIN_ROW_BYTES, prepareExport, rowMemory, type ExportRules, type ExportTask, type PreparedExport } from './span-rows';

/**
 * Where exports are read and written as rows (span-rows.ts prepareExport):
 * OTLP_DECODE_THREADS worker threads, so that one process's exports in
 * flight read and write their rows at once, and its event loop keeps to
 * HTTP, placing the spans and the COPY; 0 runs it on the event loop.
 * piscina keeps the threads (started with the first export, replaced if
 * one dies) and queues exports when all are busy.
 *
 * The rows are written into shared memory (SharedArrayBuffer), which the
 * COPY then reads where it is: nothing is copied between the thread and the
 * event loop but the spans' ids and references. That memory is kept for
 * the next exports once its COPY has succeeded (`giveRowMemory`): new
 * memory outside the JavaScript heap at the rate exports arrive (about
 * 1 MiB per 512 spans) made V8 run a full collection every few dozen
 * exports. At most SPARE_ROW_MEMORY of at most MAX_SPARE_ROW_BYTES each are
 * kept (a rare large export's memory is let go), and memory a failed COPY
 * used is let go too (the socket may still hold it).
 */
const SPARE_ROW_MEMORY = 8;
const MAX_SPARE_ROW_BYTES = 4 * 1024 * 1024;
const spare: SharedArrayBuffer[] = [];

/** The largest spare memory, or new memory of MIN_ROW_BYTES. */
function takeRowMemory(): SharedArrayBuffer {
  if (!spare.length) return rowMemory(MIN_ROW_BYTES);
  let largest = 0;
  spare.forEach((memory, index) => {
    if (memory.byteLength > spare[largest].byteLength) largest = index;
  });
  return spare.splice(largest, 1)[0];
}

/** Memory back, once nothing reads it any more. */
export function giveRowMemory(memory: SharedArrayBuffer): void {
  if (spare.length < SPARE_ROW_MEMORY && memory.byteLength <= MAX_SPARE_ROW_BYTES) spare.push(memory);
}

/** What an export is read within now (OTLP_MAX_*, TRACE_RETENTION_DAYS). */
function exportRules(): ExportRules {
  const settings = config();
  return {
    maxSpans: settings.OTLP_MAX_SPANS,
    maxAttributes: settings.OTLP_MAX_ATTRIBUTES,
    maxAttributeLength: settings.OTLP_MAX_ATTRIBUTE_LENGTH,
    maxResourceBytes: settings.OTLP_MAX_INFLATED_BYTES,
    retentionDays: settings.TRACE_RETENTION_DAYS,
    ...acceptedWindow(),
  };
}

/** Started from the TypeScript sources (npm start, jest), a thread compiles them as scripts/run.js does. */
const REGISTER_TS = path.resolve(__dirname, '../../../scripts/register-ts.js');
let pool: Piscina | null = null;

function threads(): Piscina | null {
  const count = config().OTLP_DECODE_THREADS;
  if (!count) return null;
  pool ??= new Piscina({
    filename: path.join(__dirname, `export-thread${path.extname(__filename)}`),
    minThreads: count,
    maxThreads: count,
    execArgv: path.extname(__filename) === '.ts' ? ['--require', REGISTER_TS] : [],
  });
  return pool;
}

/** An export's body (inflated) read and written as rows, in a thread when there are any; throws what its reading refuses it with. */
export async function prepare(body: Uint8Array, encoding: ExportEncoding): Promise<PreparedExport> {
  const task: ExportTask = { body, encoding, rules: exportRules(), memory: takeRowMemory() };
  const pool = threads();
  let prepared: PreparedExport;
  try {
    if (pool) {
      const reply = (await pool.run(task)) as ThreadReply;
      if ('failure' in reply) throw exportError(reply.failure);
      prepared = reply.prepared;
    } else {
      prepared = prepareExport(task);
    }
  } catch (error) {
    giveRowMemory(task.memory);
    throw error;
  }
  // The export needed more memory than it was given (new memory is larger; a thread's reply holds another
  // SharedArrayBuffer object for the same memory, so the objects are not compared): the memory it was given is unused.
  if (prepared.memory.byteLength !== task.memory.byteLength) giveRowMemory(task.memory);
  return prepared;
}

/** The threads stopped (the server's shutdown, a test's end); the next export starts them again. */
export async function stopExportThreads(): Promise<void> {
  const running = pool;
  pool = null;
  await running?.destroy();
}
