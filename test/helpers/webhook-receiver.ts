/**
 * A real webhook receiver on 127.0.0.1 for the notification tests: it checks
 * every request's Standard Webhooks signature with the `standardwebhooks`
 * package (an implementation independent of pegscope's) and answers what the
 * test's `answer` says: a status, or 'hang' (never answers).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  timestamp: number;
  /** The parsed body, when the signature verified; null otherwise. */
  body: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  verified: boolean;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Sets the secret signatures are checked with (a watch's, once it is added). */
  useSecret(secret: string): void;
  close(): Promise<void>;
}

type Answer = (request: number, req: IncomingMessage) => number | 'hang';

const readBody = (req: IncomingMessage): Promise<string> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  req.on('error', reject);
});

export async function startReceiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  let hook: Webhook | null = null;
  const hanging = new Set<IncomingMessage>();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let body: Received['body'];
      try {
        body = hook ? hook.verify(text, headers) as Received['body'] : null;
      } catch {
        body = null;
      }
      received.push({ id: headers['webhook-id'] ?? '', timestamp: Number(headers['webhook-timestamp']), body, verified: body !== null, at: Date.now() });
      const status = answer(received.length, req);
      if (status === 'hang') {
        hanging.add(req);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/pegscope`,
    received,
    useSecret(secret) { hook = new Webhook(secret); },
    close: () => new Promise<void>((resolve) => {
      for (const req of hanging) req.socket.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
