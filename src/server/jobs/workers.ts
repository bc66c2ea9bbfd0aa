// The one place that decides which background work a process runs (ROLE, docs/deploy.md): the job
// workers of every kind and the timed sweeps. `all` and `worker` run them; `api` runs none, and
// only enqueues (the jobs wait for a worker process). Routes never start work themselves: they
// take the job services from jobServices() to enqueue and report.
import type { AppContext } from '../context';
import { runsJobs } from '../config';
import { createImportService, type ImportService } from '../services/import';
import { createImageEditService, type ImageEditService } from '../services/image-edit';
import { startTilesWorkers } from '../services/tiles';
import { startAccountPurge } from '../services/account-purge';
import { startOrphanSweeper } from '../services/upload';
import { startHistorySweep } from '../services/annotations';
import { startPrelabelWorkers } from '../services/prelabel';

/** The services whose jobs the routes enqueue, one instance per app (its health and poke see the workers this process runs). */
export interface JobServices {
  imports: ImportService;
  imageEdit: ImageEditService;
}

const servicesByApp = new WeakMap<AppContext, JobServices>();

export function jobServices(ctx: AppContext): JobServices {
  let services = servicesByApp.get(ctx);
  if (!services) {
    services = { imports: createImportService(ctx), imageEdit: createImageEditService(ctx) };
    servicesByApp.set(ctx, services);
  }
  return services;
}

export interface BackgroundWork {
  /** Stops the sweeps, then the workers, which hand their running jobs back (they resume in another process). */
  stop(): Promise<void>;
}

/** Starts this process's background work, or none when its role is `api`. */
export function startBackgroundWork(ctx: AppContext): BackgroundWork {
  if (!runsJobs(ctx.config.role)) return { stop: async () => undefined };
  const { imports, imageEdit } = jobServices(ctx);
  imports.start();
  imageEdit.start();
  const tiles = startTilesWorkers(ctx);
  const purge = startAccountPurge(ctx);
  const prelabel = startPrelabelWorkers(ctx, ctx.config.jobs.prelabel);
  // Timed sweeps: each deletes only what is past its age, so two processes running them is harmless.
  const stopOrphanSweep = startOrphanSweeper(ctx);
  const stopHistorySweep = startHistorySweep(ctx);
  return {
    async stop() {
      stopOrphanSweep();
      stopHistorySweep();
      await Promise.all([imports.stop(), imageEdit.stop(), tiles.stop(), purge.stop(), prelabel.stop()]);
    },
  };
}
