import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { config, overrideConfig } from '../../../src/config/config';
import { createUser } from '../../factories/accounts';
import { outboxOf } from '../../factories/mail';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

/** A minimal SMTP server that accepts every mail and hands it to `onMail`. */
function startSmtpServer(onMail: (mail: { from: string; to: string[]; data: string }) => void): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 test-smtp ready\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          onMail(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 OK queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test-smtp\r\n');
        else if (verb === 'MAIL') {
          current.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          current.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
          return;
        } else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('reset mail through SMTP', () => {
  it('sends the reset mail through SMTP_URL and writes nothing to the outbox', async () => {
    const user = await createUser();
    let deliver: (mail: { to: string[]; data: string }) => void = () => undefined;
    const received = new Promise<{ to: string[]; data: string }>((resolve) => {
      deliver = resolve;
    });
    const server = await startSmtpServer((mail) => deliver(mail));
    const previous = config();
    overrideConfig({ SMTP_URL: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`, MAIL_FROM: 'Platform <noreply@example.test>' });
    try {
      const res = await rest(api, 'POST', '/auth/forgot-password', { body: { email: user.email } });
      expect(res.status).toBe(202);
      const mail = await received;
      expect(mail.to.join(' ')).toContain(user.email);
      expect(mail.data).toContain('Subject: Reset your password');
      expect(mail.data).toMatch(/Reset token: \S+/);
      // Only the verification mail of the signup before SMTP_URL was set is in the outbox.
      expect((await outboxOf(user.email)).map((row) => row.kind)).toEqual(['email_verification']);
    } finally {
      overrideConfig(previous);
      server.close();
    }
  });
});
