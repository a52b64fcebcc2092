import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './load';

/**
 * Load from Debian's `wrk` in its own process, so the load generator does not
 * share the service's event loop (the in-process `load()` loop does, which
 * adds its own fetch work to every measured request). 127.0.0.1 only.
 */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

function toMs(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

export async function wrkLoad(url: string, options: { headers: Record<string, string>; connections: number; seconds: number }): Promise<LoadResult> {
  if (new URL(url).hostname !== '127.0.0.1') throw new Error('wrk only targets 127.0.0.1');
  const script = path.join(os.tmpdir(), `bench-wrk-${process.pid}-${Date.now()}.lua`);
  fs.writeFileSync(script, Object.entries(options.headers).map(([name, value]) => `wrk.headers["${name}"] = "${value}"`).join('\n'));
  try {
    const threads = Math.min(2, options.connections);
    const child = spawn('wrk', [`-t${threads}`, `-c${options.connections}`, `-d${options.seconds}s`, '--latency', '-s', script, url]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.on('exit', resolve));
    const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
    // Non-2xx replies and socket errors (connect, read, write, timeout) alike.
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
    const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0) + (socket ? socket.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0);
    return {
      requests,
      errors,
      p50_ms: toMs(/\s50%\s+(\S+)/.exec(output)?.[1] ?? ''),
      p99_ms: toMs(/\s99%\s+(\S+)/.exec(output)?.[1] ?? ''),
      req_per_s: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    };
  } finally {
    fs.rmSync(script, { force: true });
  }
}
