import postgres from 'postgres';
for (const sc of ['on', 'off']) {
  const sql = postgres('postgres://postgres@127.0.0.1:5432/readout_bench', { max: 4, connection: { synchronous_commit: sc } as never });
  const [org] = await sql`select id from organizations where name = 'Bench 1'`;
  const [c] = await sql`select id from api_clients where organization_id = ${org.id} and revoked_at is null limit 1`;
  const w = new Date(Math.floor(Date.now() / 3600000) * 3600000);
  let t0 = performance.now();
  for (let i = 0; i < 300; i++) await sql`select 1`;
  console.log(sc, 'select 1', ((performance.now() - t0) / 300).toFixed(3));
  t0 = performance.now();
  for (let i = 0; i < 300; i++) await sql`select outcome from charge_quota(${org.id}, ${c.id}, ${w}, 1)`;
  console.log(sc, 'charge', ((performance.now() - t0) / 300).toFixed(3));
  t0 = performance.now();
  await Promise.all(Array.from({ length: 32 }, async () => { for (let i = 0; i < 50; i++) await sql`select outcome from charge_quota(${org.id}, ${c.id}, ${w}, 1)`; }));
  console.log(sc, 'charge x32 concurrent: per second', Math.round(1600 / ((performance.now() - t0) / 1000)));
  await sql.end();
}
