// A local SMTP server that keeps every mail the server under test sends, for API tests with
// SMTP_URL set (`smtpEnv` gives the variables).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  to: string[];
  body: string;
}

export interface MailCatcher {
  mails: CaughtMail[];
  /** SMTP_URL and SMTP_FROM for startServer. */
  smtpEnv: Record<string, string>;
  /** How many mails went to `to`. */
  countTo(to: string): number;
  /** The /auth/v1/verify link in the last mail to `to` (the text part, quoted-printable decoded). */
  linkFor(to: string): string;
  close(): Promise<void>;
}

export async function startMailCatcher(from = 'Vellum <auth@vellum.test>'): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  const port = (smtp.server.address() as AddressInfo).port;
  return {
    mails,
    smtpEnv: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: from },
    countTo: (to) => mails.filter((m) => m.to.includes(to)).length,
    linkFor(to) {
      const mail = [...mails].reverse().find((m) => m.to.includes(to));
      if (!mail) throw new Error(`no mail to ${to}`);
      const decoded = mail.body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const match = /http:\/\/127\.0\.0\.1:\d+\/auth\/v1\/verify\?[^\s"<]+/.exec(decoded);
      if (!match) throw new Error(`no link in mail to ${to}`);
      return match[0].replace(/&amp;/g, '&');
    },
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
