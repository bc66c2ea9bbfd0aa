// The report of one import as it is built: lines said once, lists capped at
// MAX_IMPORT_REPORT_ITEMS with the rest counted. Pure (contract types only), so the dry run's
// offload thread (./read-through.ts) records into one as the run does (./run.ts).
import { emptyImportReport, MAX_IMPORT_REPORT_ITEMS, type ImportReport } from '../../../contract/imports';
import { printableText } from '../../../contract/text';
import type { ImportReporter } from '../../formats/reader';

/** The report of one import, with its lists capped and each line said once (a resumed import reads the skipped files again). */
export class ReportBuilder implements ImportReporter {
  readonly report: ImportReport;
  private readonly seen = new Set<string>();
  clipped = 0;

  constructor(saved: Partial<ImportReport> | null) {
    this.report = { ...emptyImportReport(), ...(saved ?? {}) };
    for (const s of this.report.skipped) this.seen.add(`s\u0000${s.file}\u0000${s.reason}`);
    for (const w of this.report.warnings) this.seen.add(`w\u0000${w}`);
  }

  /**
   * Where the reading of the dataset reports (the archive's opening, the reader). The dry run
   * (./read-through.ts) read the same dataset first and its lines are in the report, those past
   * the lists' cap as counts only (in this run, or in the run this one resumes): a line past the
   * cap is therefore not counted again here, where its key may not have been kept.
   */
  readonly reading: ImportReporter = {
    skip: (file, reason) => this.skip(file, reason, false),
    warn: (message) => this.warn(message, false),
  };

  // Entry names and reasons come from the archive: NULs and unpaired surrogates would make the
  // report unstorable (and the job crash on every retry), so they are shown as U+FFFD.
  skip(rawFile: string, rawReason: string, countPastCap = true): void {
    const file = printableText(rawFile);
    const reason = printableText(rawReason);
    const key = `s\u0000${file}\u0000${reason}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.report.skipped.length < MAX_IMPORT_REPORT_ITEMS) this.report.skipped.push({ file, reason });
    else if (countPastCap) this.report.skipped_more += 1;
  }

  warn(rawMessage: string, countPastCap = true): void {
    const message = printableText(rawMessage);
    const key = `w\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (this.report.warnings.length < MAX_IMPORT_REPORT_ITEMS) this.report.warnings.push(message);
    else if (countPastCap) this.report.warnings_more += 1;
  }

  /** Adds what one image recorded in its own builder: counters summed, its lines said once and capped here. */
  merge(part: ReportBuilder): void {
    const p = part.report;
    this.report.images_created += p.images_created;
    this.report.images_matched += p.images_matched;
    this.report.annotations_created += p.annotations_created;
    for (const s of p.skipped) this.skip(s.file, s.reason);
    for (const w of p.warnings) this.warn(w);
    this.report.skipped_more += p.skipped_more;
    this.report.warnings_more += p.warnings_more;
    this.clipped += part.clipped;
  }
}
