// The only importer of mailparser: turns raw RFC 5322 bytes into the message record the shards
// store, with the one-time code and verification link extracted. Runs inside the piscina pool.
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { AttachmentContent, ParsedWithParts } from '../contract/model.js';
import { htmlToText } from '../extract/html-to-text.js';
import { explain } from '../extract/index.js';
import { unverified } from '../contract/authentication.js';
import { safeView } from './safe-text.js';

/** Text and HTML beyond this are not kept on the record (the raw source keeps everything). */
export const MAX_STORED_PART_CHARS = 1024 * 1024;

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  if (!field) return [];
  const list = Array.isArray(field) ? field : [field];
  // A group's mailboxes (RFC 6854 allows one in From) are addresses like any other.
  return list.flatMap((a) => a.value.flatMap((v) => [v, ...(v.group ?? [])]).map((v) => v.address ?? '').filter(Boolean)).map((a) => a.toLowerCase());
}

/**
 * A link as the WHATWG URL parser writes it (issue 33): no control characters, white space or
 * invisible format characters (bidi overrides, zero-width spaces: U+202E shows `gpj.exe` as
 * `exe.jpg`); those inside are percent-encoded, tabs and line breaks dropped; only http(s); else null.
 */
const UNSAFE_IN_LINK = /[\s\x00-\x1f\x7f-\x9f\u2028\u2029\p{Cf}]/u;

export function normalizedLink(link: string | null): string | null {
  if (link === null) return null;
  // A clean link stays exactly as the mail wrote it (what extraction promises).
  if (!UNSAFE_IN_LINK.test(link)) return link;
  try {
    const url = new URL(link);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    const href = url.href;
    return UNSAFE_IN_LINK.test(href) ? null : href;
  } catch {
    return null;
  }
}

/** Authors shown at most (the raw source keeps them all). */
const MAX_AUTHORS = 20;

/**
 * Every author address, from every From field (mailparser reads only the first field), so a
 * spoof like `From: security@bank.example, x@attacker.test` shows the attacker too (issue 33).
 */
async function authors(parsed: ParsedMail): Promise<string> {
  const list = addresses(parsed.from);
  const fields = parsed.headerLines.filter((h) => h.key === 'from');
  for (const extra of fields.slice(1, MAX_AUTHORS)) {
    const again = await simpleParser(Buffer.from(`${extra.line}\r\n\r\n`), PARSER_OPTIONS);
    list.push(...addresses(again.from));
  }
  return [...new Set(list)].slice(0, MAX_AUTHORS).join(', ');
}

/**
 * Header text kept on the record, all fields together (the raw source keeps everything). A
 * hostile header section of 6 MB was otherwise decoded and encoded again at every step a record
 * takes (the shard's store, its log, each read of the message) on the threads every tenant shares.
 */
export const MAX_STORED_HEADER_CHARS = 256 * 1024;
const HEADERS_CLIPPED = `headers truncated to ${MAX_STORED_HEADER_CHARS} characters (the raw source keeps them all)`;

function headerRecord(parsed: ParsedMail): { headers: Record<string, string>; clipped: boolean } {
  const out: Record<string, string> = {};
  let left = MAX_STORED_HEADER_CHARS;
  for (const { key, line } of parsed.headerLines) {
    const room = left - key.length - 1;
    if (room <= 0) return { headers: out, clipped: true };
    const whole = line.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
    const value = whole.length > room ? whole.slice(0, room) : whole;
    left -= key.length + 1 + value.length;
    out[key] = key in out ? `${out[key]}\n${value}` : value;
    if (value !== whole) return { headers: out, clipped: true };
  }
  return { headers: out, clipped: false };
}

function clip(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  return value.length > MAX_STORED_PART_CHARS ? value.slice(0, MAX_STORED_PART_CHARS) : value;
}

/**
 * mailparser's own HTML-to-text conversion costs more than the rest of parsing put together, so it
 * is off: extraction reads the HTML itself, and an HTML-only message gets its text from the same
 * single-pass reader. Nothing reads an attachment's checksum, so its MD5 is not computed (a 100 KB
 * bench mail parsed in 1,133-1,432 µs with it, 960-1,035 µs without; sizes are still counted).
 */
const PARSER_OPTIONS = { skipImageLinks: true, skipTextToHtml: true, skipHtmlToText: true, checksumAlgo: false } as const;

export async function parseMail(raw: Uint8Array): Promise<ParsedWithParts> {
  const parsed = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), PARSER_OPTIONS);
  const html = typeof parsed.html === 'string' ? parsed.html : null;
  const subject = parsed.subject ?? '';
  const found = explain({ subject, text: parsed.text ?? null, html });
  const text = parsed.text ?? (html ? htmlToText(html, MAX_STORED_PART_CHARS).text.trim() : null);
  const safe = safeView({ text: clip(parsed.text ?? null), html: clip(html) });
  const { headers, clipped } = headerRecord(parsed);
  return {
    from: await authors(parsed),
    to: addresses(parsed.to),
    subject,
    text: clip(text),
    html: clip(html),
    headers,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? null, content_type: a.contentType, size: a.size })),
    otp: found.otp,
    verification_link: normalizedLink(found.verification_link),
    extraction: { otp_reason: found.otp_reason, link_reason: found.link_reason },
    size: raw.byteLength,
    safe_text: safe.safe_text,
    warnings: clipped ? [...safe.warnings, HEADERS_CLIPPED] : safe.warnings,
    // Filled in by the ingress, which holds the connection facts sender authentication needs.
    authentication: unverified(),
    ...(parsed.attachments.length > 0 ? { parts: parsed.attachments.map((a) => a.content) } : {}),
  };
}

export type { AttachmentContent };

/** The nth attachment cut from the raw source: for messages stored before their parts were kept. */
export async function attachmentOf(raw: Uint8Array, index: number): Promise<AttachmentContent | null> {
  const parsed = await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), PARSER_OPTIONS);
  const a = parsed.attachments[index];
  if (!a) return null;
  return { filename: a.filename ?? null, content_type: a.contentType, content: a.content };
}
