// The mails every SMTP scenario sends, for Mailcue and MailDev alike: a small OTP mail (text +
// html, ~0.7 KB) and a ~100 KB mail with a binary attachment. Built as CRLF, dot-stuffed DATA
// payloads ending in "\r\n.\r\n", ready to write to a socket.
import { randomBytes } from 'node:crypto';

export type MailKind = 'small' | 'large';

/** ~73 KB of binary: base64 makes it ~98 KB, so the whole mail is ~100 KB. */
const ATTACHMENT_BYTES = 73_000;
const ATTACHMENT_B64 = randomBytes(ATTACHMENT_BYTES).toString('base64').replace(/.{76}/g, '$&\r\n');

export interface Mail {
  from: string;
  to: string;
  /** The full DATA payload, dot-stuffed, ending with CRLF.CRLF. */
  data: Buffer;
}

function headers(from: string, to: string, subject: string, id: string, contentType: string): string {
  return [
    `From: Bench Sender <${from}>`,
    `To: <${to}>`,
    `Subject: ${subject}`,
    `Message-ID: <${id}@bench.mailcue.test>`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    `Content-Type: ${contentType}`,
  ].join('\r\n');
}

/** The 6-digit code mail number `seq` carries. */
export function otpFor(seq: number): string {
  return String(100000 + ((seq * 7919) % 900000));
}

/** A small verification mail with a 6-digit code (text + html alternative). `tag` names it uniquely. */
export function smallMail(to: string, tag: string, seq: number): Mail {
  const from = 'noreply@sender.bench.test';
  const code = otpFor(seq);
  const boundary = `b_${tag}`;
  const text = `Hello,\r\n\r\nYour verification code is ${code}. It expires in 10 minutes.\r\nIf you did not ask for it, ignore this mail.\r\n`;
  const html = `<html><body><p>Hello,</p><p>Your verification code is <b>${code}</b>. It expires in 10 minutes.</p><p>If you did not ask for it, ignore this mail.</p></body></html>`;
  const body = [
    headers(from, to, `Your code ${tag}`, tag, `multipart/alternative; boundary="${boundary}"`),
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    text,
    `--${boundary}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    html,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { from, to, data: payload(body) };
}

/** Dot-stuffs (RFC 5321 §4.5.2) and terminates a CRLF message body. */
function payload(body: string): Buffer {
  return Buffer.from(`${body.replace(/\r\n\./g, '\r\n..')}.\r\n`, 'utf8');
}

/** A ~100 KB mail: a short text body plus a binary attachment (application/pdf, base64). */
export function largeMail(to: string, tag: string, seq: number): Mail {
  const from = 'reports@sender.bench.test';
  const boundary = `m_${tag}`;
  const body = [
    headers(from, to, `Your report ${tag}`, tag, `multipart/mixed; boundary="${boundary}"`),
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Hello,\r\n\r\nThe report number ${seq} is attached.\r\n`,
    `--${boundary}`,
    `Content-Type: application/pdf; name="report-${seq}.pdf"`,
    `Content-Disposition: attachment; filename="report-${seq}.pdf"`,
    'Content-Transfer-Encoding: base64',
    '',
    ATTACHMENT_B64,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { from, to, data: payload(body) };
}

export function buildMail(kind: MailKind, to: string, tag: string, seq: number): Mail {
  return kind === 'small' ? smallMail(to, tag, seq) : largeMail(to, tag, seq);
}

export const LARGE_ATTACHMENT_BYTES = ATTACHMENT_BYTES;
