/**
 * The send-progress probe on a real loopback connection: the kernel's send queue of a socket the
 * peer does not read grows, and shrinks as soon as the peer reads (Linux /proc/net/tcp*).
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { kernelSendQueue, progressed, sendBacklog } from '../../src/http/send-progress.js';

describe('send progress of a socket', () => {
  it('sees the backlog shrink when the peer reads, and not while it does not', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
    const client = net.connect(port, '127.0.0.1');
    client.pause();
    const sock = await accepted;
    try {
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let i = 0; i < 200 && sock.write(chunk); i++);
      await new Promise((r) => setTimeout(r, 300));
      const queued = await kernelSendQueue(sock.localPort!, sock.remotePort!);
      expect(queued).toBeGreaterThan(0);
      const a = await sendBacklog(sock);
      await new Promise((r) => setTimeout(r, 250));
      const b = await sendBacklog(sock);
      expect(progressed(a, b)).toBe(false); // nobody reads: no progress
      client.resume();
      await new Promise((r) => setTimeout(r, 250));
      const c = await sendBacklog(sock);
      expect(progressed(b, c)).toBe(true);
    } finally {
      client.destroy();
      sock.destroy();
      server.close();
    }
  });
});
