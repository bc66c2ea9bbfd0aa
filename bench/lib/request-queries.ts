// Where one API request's time goes between the database and the rest of the server (bench/dataset.bench.ts
// --explain): the queries the route sends are caught on their way into the pg driver (the server runs in
// this process), each with its wall time inside the request, then each is run again under
// EXPLAIN (ANALYZE) on a connection of its own for the database's own planning and execution times.
import { performance } from 'node:perf_hooks';
import pg from 'pg';

interface Caught { text: string; values: unknown[]; ms: number }

/** Catches the queries sent through pg (Pool and Client) while `body` runs, with each one's wall time to its answer. */
async function catchQueries(body: () => Promise<void>): Promise<Caught[]> {
  const caught: Caught[] = [];
  const protos = [pg.Pool.prototype, pg.Client.prototype] as unknown as { query: (...a: unknown[]) => unknown }[];
  const saved = protos.map((p) => p.query);
  protos.forEach((p, i) => {
    p.query = function (this: unknown, ...args: unknown[]) {
      const q = args[0] as string | { text: string; values?: unknown[] };
      const text = typeof q === 'string' ? q : q.text, values = (typeof q === 'string' ? args[1] : (q.values ?? args[1])) as unknown[] | undefined; // drizzle: (config, params)
      const t0 = performance.now(), out = saved[i]!.apply(this, args);
      // a Pool's query goes through a Client's: count it once, at the outer call
      if (i === 0 || !caught.some((c) => c.text === text && c.ms < 0)) {
        const c: Caught = { text, values: values ?? [], ms: -1 };
        caught.push(c);
        if (out && typeof (out as Promise<unknown>).then === 'function') void (out as Promise<unknown>).then(() => (c.ms = performance.now() - t0), () => (c.ms = performance.now() - t0));
      }
      return out;
    };
  });
  try {
    await body();
  } finally {
    protos.forEach((p, i) => (p.query = saved[i]!));
  }
  return caught.filter((c, i) => caught.findIndex((d) => d.text === c.text && d.values.join() === c.values.join()) === i);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * (xs.length - 1) + 0.5))]!;

/**
 * One request to `url` (headers given) caught as above, its queries then explained `reps` times each
 * (interleaved) on `dbUrl`: per query its wall time in the request and the database's planning and
 * execution p50 / p95; the request's wall time beside them.
 */
export async function explainRequest(url: string, headers: Record<string, string>, dbUrl: string, reps: number): Promise<string[]> {
  let requestMs = 0;
  const caught = await catchQueries(async () => {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    requestMs = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  });
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const times = caught.map(() => ({ plan: [] as number[], exec: [] as number[] }));
  try {
    for (let r = 0; r < reps; r++) {
      for (const [i, c] of caught.entries()) {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ${c.text}`, c.values);
        const plan = (rows[0] as { 'QUERY PLAN': { 'Planning Time': number; 'Execution Time': number }[] })['QUERY PLAN'][0]!;
        times[i]!.plan.push(plan['Planning Time']);
        times[i]!.exec.push(plan['Execution Time']);
      }
    }
    // the first query's plan in full, once, for the table's reader
    const lines = [`request ${requestMs.toFixed(2)} ms (in-process fetch, one call), ${caught.length} queries:`];
    for (const [i, c] of caught.entries()) {
      const t = times[i]!;
      lines.push(`  ${c.ms.toFixed(2)} ms in the request; planning p50 ${pct(t.plan, 50).toFixed(3)} ms, execution p50 / p95 ${pct(t.exec, 50).toFixed(3)} / ${pct(t.exec, 95).toFixed(3)} ms: ${c.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    }
    return lines;
  } finally {
    await client.end();
  }
}
