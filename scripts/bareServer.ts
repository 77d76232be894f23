// The floor for /v1/health: a bare node:http server giving the same answer, body and headers alike (a fixed
// traceparent of the same length stands in for a fresh one), so the ratio measures our code, not the bytes.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok' });
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  'content-length': Buffer.byteLength(body),
};
const server = createServer((_, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(
    JSON.stringify({
      msg: 'listening',
      url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    }),
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
