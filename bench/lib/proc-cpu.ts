// The CPU of the browser a benchmark launched: every process under this one (the browser, its
// renderers, SwiftShader's GPU process), read from /proc. Linux only.
import fs from 'node:fs';

/** The kind of a browser process, from its command line: SwiftShader draws in the GPU process, the page and its workers run in a renderer. */
function processKind(pid: number): 'gpu' | 'renderer' | 'other' {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmd.includes('--type=gpu-process') ? 'gpu' : cmd.includes('--type=renderer') ? 'renderer' : 'other';
  } catch {
    return 'other';
  }
}

/** CPU seconds (user + sys) of every process under this one, and of its GPU process apart. */
export function treeCpu(): { total: number; gpu: number } {
  const parent = new Map<number, number>(), cpu = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      cpu.set(Number(d), (Number(f[11]) + Number(f[12])) / 100); // utime, stime in clock ticks (100 Hz)
    } catch { /* gone */ }
  }
  let total = 0, gpu = 0;
  for (const [pid, c] of cpu) {
    let p = parent.get(pid);
    while (p && p !== process.pid) p = parent.get(p);
    if (p !== process.pid) continue;
    total += c;
    if (processKind(pid) === 'gpu') gpu += c;
  }
  return { total, gpu };
}
