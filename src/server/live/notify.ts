// Project-level live notifications (issue 30): a bulk change of a project's images (an import
// ended) is announced by NOTIFY on PROJECT_CHANNEL, `<project id>:<reason>`, so every server
// process hears it (PGlite: in process) and tells the sockets watching that project
// (`watch_project`, ./watch.ts ProjectWatchers). Kept apart from the hub so any service (the
// import job, on an api or a worker process) can call it without loading the hub.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { LiveProjectChange } from '../../contract/live';

export const PROJECT_CHANNEL = 'vellum_project_changes';

/**
 * Tells the project's watchers, on every process, that its images changed (`reason`). Never
 * throws: a lost notification costs a stale grid until the next change or reload, not the caller's work.
 */
export async function notifyProjectChanged(ctx: Pick<AppContext, 'db' | 'log'>, projectId: string, reason: LiveProjectChange = 'import_finished'): Promise<void> {
  try {
    await ctx.db.execute(sql`SELECT pg_notify(${PROJECT_CHANNEL}, ${`${projectId}:${reason}`})`);
  } catch (err) {
    ctx.log.warn({ err, projectId }, 'live: the project change could not be announced');
  }
}
