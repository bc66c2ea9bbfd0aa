// Compaction of a level's shared buffers (issue 35 §2). A scene arrives in parts of 500 shapes and
// a cell's range moves each time its shapes grow, so once loading ends a level's ranges lie in
// the order each cell last changed, with holes between them: a frame drew 30-65 runs a pass where
// one would do. When the scene has been quiet for QUIET_MS and a level's ranges fall into more
// runs than a few (LOOSE_RUNS), the level's cells are written again, a slice at a
// time between frames, into a fresh set of buffers sized for all of them, one after another in
// cell-key order; frames keep drawing the old ranges meanwhile. At the end the cells swap to the
// new ranges together and the old buffers go. A change to one of the cells while it runs (an edit,
// a level dropped or built) abandons the compaction; it is tried again once quiet.
import { destroyLevel, LevelBuffers, newLevel, tiersOf, writeLevel, type Chunk, type ChunkLevel } from './cells';
import type { Range } from './level-buffers';

/** Quiet time (no scene change, no level built) before a compaction starts. */
const QUIET_MS = 300;
/** Time a compaction slice may take. */
const SLICE_MS = 6;
/** Runs beyond one a pass may fall into before its level is compacted (two or three edited cells moved out of line). */
export const LOOSE_RUNS = 4;

export interface CompactionHost {
  readonly chunks: Map<number, Chunk>;
  /** The shared buffers by level (the compaction swaps in a level's new set). */
  readonly stores: Map<number, LevelBuffers>;
  newStore(): LevelBuffers;
  /** RendererOptions.compaction. */
  enabled(): boolean;
  /** Levels are being built between frames (wait for them). */
  building(): boolean;
  /** A compaction ended (`sample`: a level in the new buffers, to draw once off screen for software WebGL's first-draw cost; null: none was made): asks for a frame. */
  done(sample: ChunkLevel | null): void;
}

interface Job {
  level: number;
  old: LevelBuffers;
  fresh: LevelBuffers;
  cells: Chunk[];
  olds: ChunkLevel[];
  built: ChunkLevel[];
}

/** How many runs beyond one a pass over the levels' ranges would draw (its worst pool, all cells drawn whole). */
export function looseRuns(levels: readonly ChunkLevel[]): number {
  let worst = 0;
  for (const pick of PASSES) {
    const ranges = levels.map(pick).filter((r): r is Range => !!r && r.cap > 0);
    if (!ranges.length) continue;
    ranges.sort((a, b) => (a.page === b.page ? a.start - b.start : pageIndex(a) - pageIndex(b)));
    let runs = 1;
    for (let k = 1; k < ranges.length; k++) {
      const a = ranges[k - 1]!, b = ranges[k]!;
      if (a.page !== b.page || a.start + a.cap !== b.start) runs++;
    }
    worst = Math.max(worst, runs - 1);
  }
  return worst;
}

/** The ranges a frame draws by offset (indices of fills and outlines, compact polygons, dots). */
const PASSES: ((l: ChunkLevel) => Range | null)[] = [(l) => l.fillI, (l) => l.lineI, (l) => l.compact, (l) => l.dots];
const pageIds = new WeakMap<object, number>();
let nextPage = 0;
function pageIndex(r: Range): number {
  let id = pageIds.get(r.page);
  if (id === undefined) pageIds.set(r.page, (id = nextPage++));
  return id;
}

export class Compactor {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private job: Job | null = null;
  /** Each level's `moves` when its ranges were last found tight enough (poke's cheap test). */
  private readonly seen = new WeakMap<LevelBuffers, number>();
  private disposed = false;
  /** Compactions finished (tests and benchmarks read it through the renderer's stats). */
  count = 0;

  constructor(private readonly host: CompactionHost) {}

  /** A compaction is waiting for quiet or running. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /**
   * After a change to the scene or a level built: a compaction waits for QUIET_MS of quiet (one
   * under way goes on, checked at its end). Called on every scene change and zoom frame, so it
   * only re-arms the timer: which level to lay out (a sort of its ranges) is chosen in the tick.
   */
  poke(): void {
    if (this.disposed || !this.host.enabled() || (!this.job && !this.moved())) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), this.job ? 0 : QUIET_MS);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Some level took new ranges since its layout was last looked at (O(levels), no sort). */
  private moved(): boolean {
    for (const st of this.host.stores.values()) if (st.users >= 2 && st.moves > 0 && this.seen.get(st) !== st.moves) return true;
    return false;
  }

  /** The level whose ranges are loosest (past LOOSE_RUNS), or null; a level found tight is not looked at again until it moves a range. */
  private candidate(): number | null {
    let best: number | null = null, bestRuns = LOOSE_RUNS;
    for (const [level, st] of this.host.stores) {
      if (st.users < 2 || st.moves === 0 || this.seen.get(st) === st.moves) continue;
      const runs = looseRuns(this.levelsOf(level, st).map(([, l]) => l));
      if (runs > bestRuns) [best, bestRuns] = [level, runs];
      else if (runs <= LOOSE_RUNS) this.seen.set(st, st.moves); // loose but not the loosest: laid out next
    }
    return best;
  }

  private levelsOf(level: number, st: LevelBuffers): [Chunk, ChunkLevel][] {
    const out: [Chunk, ChunkLevel][] = [];
    for (const c of this.host.chunks.values()) {
      const l = c.levels.get(level);
      if (l && l.store === st) out.push([c, l]);
    }
    return out;
  }

  private tick(): void {
    this.timer = null;
    if (this.disposed) return;
    if (this.host.building()) {
      this.timer = setTimeout(() => this.tick(), QUIET_MS);
      return;
    }
    if (!this.job) this.job = this.start();
    if (!this.job) return this.host.done(null);
    const t0 = performance.now();
    const { job } = this;
    while (job.built.length < job.cells.length && performance.now() - t0 < SLICE_MS) {
      const k = job.built.length, c = job.cells[k]!, old = job.olds[k]!;
      if (!this.unchanged(job, c, old)) return this.abandon();
      const l = newLevel(job.fresh, old.used);
      writeLevel(l, c, tiersOf(c, job.level));
      job.built.push(l);
    }
    if (job.built.length < job.cells.length) this.timer = setTimeout(() => this.tick(), 0);
    else this.finish(job);
  }

  /** The level's cells in key order, and fresh buffers with room for all of them reserved. */
  private start(): Job | null {
    const level = this.candidate();
    if (level === null) return null;
    const old = this.host.stores.get(level)!;
    const pairs = this.levelsOf(level, old).sort((a, b) => a[0].key - b[0].key);
    if (pairs.some(([c, l]) => l.stale || c.dirty)) return null;
    const fresh = this.host.newStore();
    const pools = [fresh.fillV, fresh.fillI, fresh.lineV, fresh.lineI, fresh.compact, fresh.dots];
    // the old ranges' capacities bound what the cells hold (a range rewritten smaller keeps its capacity)
    const need = [0, 0, 0, 0, 0, 0];
    for (const [, l] of pairs) [l.fillV, l.fillI, l.lineV, l.lineI, l.compact, l.dots].forEach((r, i) => (need[i]! += r?.cap ?? 0));
    pools.forEach((p, i) => p.reserve(need[i]!));
    return { level, old, fresh, cells: pairs.map(([c]) => c), olds: pairs.map(([, l]) => l), built: [] };
  }

  private unchanged(job: Job, c: Chunk, old: ChunkLevel): boolean {
    return this.host.chunks.get(c.key) === c && c.levels.get(job.level) === old && !old.stale && !c.dirty;
  }

  private abandon(): void {
    this.job!.fresh.destroy();
    this.job = null;
    this.poke();
    if (this.timer === null) this.host.done(null);
  }

  /** Swaps every cell to its new ranges at once (when none changed and no other cell took a range of the old buffers meanwhile). */
  private finish(job: Job): void {
    this.job = null;
    if (job.old.users !== job.cells.length || job.cells.some((c, k) => !this.unchanged(job, c, job.olds[k]!))) {
      job.fresh.destroy();
      this.poke();
      if (this.timer === null) this.host.done(null);
      return;
    }
    job.cells.forEach((c, k) => {
      destroyLevel(job.olds[k]!);
      c.levels.set(job.level, job.built[k]!);
    });
    job.old.destroy();
    job.fresh.moves = 0;
    job.fresh.compacted = true;
    this.host.stores.set(job.level, job.fresh);
    this.count++;
    this.host.done(job.built[0]!);
    this.poke(); // another level may be loose too
  }
}
