// Parent side of a load-generator child (gen-child.ts): start it, call its methods with a deadline,
// read its CPU time, stop it by PID.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { start, stop, type Child } from './proc.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'gen-child.ts');
const START_TIMEOUT_MS = 20_000;

interface Reply {
  id: number;
  result?: unknown;
  error?: string;
  cpu_s: number;
}

export class Generator {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  /** The child's total CPU seconds as of its last reply. */
  cpuS = 0;

  private constructor(readonly child: Child) {
    child.proc.on('message', (m: Reply) => {
      this.cpuS = m.cpu_s;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      p.resolve(m);
    });
    void child.exitPromise.then((code) => {
      for (const p of this.pending.values()) p.reject(new Error(`${child.name} exited (${code}): ${child.output.slice(-5).join(' | ')}`));
      this.pending.clear();
    });
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Starts a child; `nofile` asks for that open-file limit (capped by the hard limit). */
  static async start(name: string, nofile?: number): Promise<Generator> {
    const child = start(name, process.execPath, ['--import', 'tsx', ENTRY], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], nofile });
    const gen = new Generator(child);
    const ready = new Promise<Reply>((resolve, reject) => gen.pending.set(0, { resolve, reject }));
    const timer = setTimeout(() => gen.pending.get(0)?.reject(new Error(`${name} did not start`)), START_TIMEOUT_MS);
    try {
      await ready;
    } finally {
      clearTimeout(timer);
    }
    return gen;
  }

  /** Calls a method; rejects on its error, on the child's exit, or after `timeoutMs`. */
  async call<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.child.name}.${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.proc.send({ id, method, params });
    });
    if (reply.error) throw new Error(`${this.child.name}.${method}: ${reply.error}`);
    return reply.result as T;
  }

  /** The child's CPU seconds now. */
  async cpu(): Promise<number> {
    await this.call('cpu', null, 10_000);
    return this.cpuS;
  }

  async stop(): Promise<void> {
    try {
      this.child.proc.disconnect();
    } catch {
      /* already gone */
    }
    await stop(this.child, 3000);
  }
}

/** Runs one method in a fresh child and returns its result with the CPU seconds it used. */
export async function runInChild<T>(name: string, method: string, params: unknown, timeoutMs: number): Promise<{ result: T; cpu_s: number }> {
  const gen = await Generator.start(name);
  try {
    const c0 = await gen.cpu();
    const result = await gen.call<T>(method, params, timeoutMs);
    return { result, cpu_s: gen.cpuS - c0 };
  } finally {
    await gen.stop();
  }
}
