/**
 * Send only a raw HTTP request head (no body) to a test server and collect what it answers — for
 * `Expect: 100-continue` checks, where the server must answer before any body byte is sent.
 */
import net from 'node:net';

/**
 * Write `head` (ending in `\r\n\r\n`) to `baseUrl`'s port on 127.0.0.1 and resolve with the bytes
 * answered: once a head arrived (for a 413, once its JSON body closed too), or whatever came after
 * `timeoutMs` (default 3000; '' when nothing did).
 */
export function askWithHead(baseUrl: string, head: string, timeoutMs = 3000): Promise<string> {
  return new Promise<string>((resolve) => {
    const s = net.connect(Number(new URL(baseUrl).port), '127.0.0.1', () => s.write(head));
    let out = '';
    s.on('data', (d) => {
      out += d;
      if (out.includes('\r\n\r\n') && (!out.startsWith('HTTP/1.1 413') || out.endsWith('}'))) {
        s.destroy();
        resolve(out);
      }
    });
    s.on('error', () => resolve(out));
    setTimeout(() => {
      s.destroy();
      resolve(out);
    }, timeoutMs);
  });
}
