// The bench's bystander (npm run bench -- --only fair): another organization's cheap requests, a list every 100 ms and
// a token every fifth time, timed in a process of their own, as another client's are. Timed in the bench's own process,
// they waited behind its reading of the heavy answers as well as the server's.
//   node --import tsx scripts/bench/probe.ts '{"url":…,"token":…,"clientId":…,"clientSecret":…,"seconds":…}'
// prints one JSON line: [{ ms, ok, list }, …].
type Probe = { url: string; token: string; clientId: string; clientSecret: string; seconds: number };
const { url, token, clientId, clientSecret, seconds } = JSON.parse(process.argv[2]) as Probe;

async function timed(request: () => Promise<Response>, list: boolean) {
  const t0 = performance.now();
  const res = await request();
  await res.arrayBuffer();
  return { ms: performance.now() - t0, ok: res.status === 200, list };
}

const list = () => fetch(`${url}/v1/reports`, { headers: { authorization: `Bearer ${token}` } });
const newToken = () =>
  fetch(`${url}/api/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });

const seen: { ms: number; ok: boolean; list: boolean }[] = [];
for (let i = 0, until = performance.now() + seconds * 1000; performance.now() < until && i < 10_000; i++) {
  seen.push(i % 5 === 4 ? await timed(newToken, false) : await timed(list, true));
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(`${JSON.stringify(seen)}\n`);
