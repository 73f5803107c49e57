// Sends mail to the service over real SMTP with nodemailer.
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

export async function sendMail(smtpPort: number, message: Mail.Options): Promise<{ response: string; accepted: unknown[]; rejected: unknown[] }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, tls: { rejectUnauthorized: false } });
  try {
    return (await transport.sendMail({ from: 'Sender <sender@example.com>', ...message })) as { response: string; accepted: unknown[]; rejected: unknown[] };
  } finally {
    transport.close();
  }
}
