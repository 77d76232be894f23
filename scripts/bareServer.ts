// The floor for /v1/health: a bare node:http server answering the same JSON.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok' });
const server = createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
