// AES-256-GCM sealing of the few secrets Mailcue must be able to read back (the API key signs
// webhooks, as SEED.md requires). The master key comes from MAILCUE_MASTER_KEY or from a file
// created with mode 0600 in the data dir on first start.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const KEY_FILE = 'master.key';

/** Resolves the master key (64 hex chars) from config or the data dir, creating it if absent. */
export function resolveMasterKey(configured: string | null, dataDir: string): string {
  if (configured) {
    const key = /^[0-9a-f]{64}$/i.test(configured) ? configured : Buffer.from(configured, 'base64').toString('hex');
    if (key.length !== 64) throw new Error('MAILCUE_MASTER_KEY must be 32 bytes, as 64 hex characters or base64');
    return key.toLowerCase();
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, KEY_FILE);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const key = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
      return key;
    } catch {
      return readFileSync(file, 'utf8').trim(); // another process created it first
    }
  }
}

export class Sealer {
  private readonly key: Buffer;

  constructor(masterKeyHex: string) {
    this.key = Buffer.from(masterKeyHex, 'hex');
    if (this.key.length !== 32) throw new Error('master key must be 32 bytes');
  }

  /** iv(12) | tag(16) | ciphertext */
  seal(plain: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Uint8Array): string {
    const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    const decipher = createDecipheriv('aes-256-gcm', this.key, buf.subarray(0, 12));
    decipher.setAuthTag(buf.subarray(12, 28));
    return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8');
  }
}
