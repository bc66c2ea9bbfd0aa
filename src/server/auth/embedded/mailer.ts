// Sends the confirmation mails of the embedded auth service through SMTP_URL (nodemailer).
import nodemailer, { type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export class Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...mail });
  }

  close(): void {
    this.transport.close();
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function confirmSignupMail(to: string, link: string): Mail {
  return {
    to,
    subject: 'Confirm your Vellum account',
    text: `Welcome to Vellum.\n\nConfirm your e-mail address to finish creating your account:\n${link}\n\nIf you did not sign up, ignore this message.`,
    html: `<p>Welcome to Vellum.</p><p><a href="${escapeHtml(link)}">Confirm your e-mail address</a> to finish creating your account.</p><p>If you did not sign up, ignore this message.</p>`,
  };
}

export function confirmEmailChangeMail(to: string, link: string): Mail {
  return {
    to,
    subject: 'Confirm your new Vellum e-mail address',
    text: `Confirm that this is the new e-mail address of your Vellum account:\n${link}\n\nIf you did not ask for this, ignore this message.`,
    html: `<p><a href="${escapeHtml(link)}">Confirm</a> that this is the new e-mail address of your Vellum account.</p><p>If you did not ask for this, ignore this message.</p>`,
  };
}
