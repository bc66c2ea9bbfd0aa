// What an uploaded ONNX file is, read from its protobuf without loading it: the graph's inputs and
// outputs (names and shapes) and the model's metadata. Only Ultralytics YOLOv5 / v8 / 11 `detect`
// and `segment` exports are accepted; anything else is refused saying what was expected.

/** One field of a protobuf message: a varint, or the bytes of a length-delimited field. */
type Field = { no: number; varint?: bigint; bytes?: Uint8Array };

export class OnnxFormatError extends Error {
  override name = 'OnnxFormatError';
}

function readVarint(buf: Uint8Array, at: number): [bigint, number] {
  let v = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const b = buf[i]!;
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, i + 1];
    shift += 7n;
  }
  throw new OnnxFormatError('truncated varint');
}

/** The fields of one message, in order; length-delimited ones as views (no copy), fixed ones skipped. */
function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [v, n] = readVarint(buf, at);
      out.push({ no, varint: v });
      at = n;
    } else if (wire === 2) {
      const [len, n] = readVarint(buf, at);
      const end = n + Number(len);
      if (end > buf.length) throw new OnnxFormatError('a field runs past the end of the file');
      out.push({ no, bytes: buf.subarray(n, end) });
      at = end;
    } else if (wire === 5) at += 4;
    else if (wire === 1) at += 8;
    else throw new OnnxFormatError(`unknown wire type ${wire}`);
  }
  return out;
}

const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : '');

export interface TensorInfo {
  name: string;
  /** a number, or the name of a dynamic dimension */
  dims: (number | string)[];
}

export interface OnnxSummary {
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  metadata: Record<string, string>;
}

function tensorInfo(bytes: Uint8Array): TensorInfo {
  const f = fields(bytes);
  const name = text(f.find((x) => x.no === 1)?.bytes);
  const type = f.find((x) => x.no === 2)?.bytes;
  const tensor = type ? fields(type).find((x) => x.no === 1)?.bytes : undefined;
  const shape = tensor ? fields(tensor).find((x) => x.no === 2)?.bytes : undefined;
  const dims = shape
    ? fields(shape)
        .filter((x) => x.no === 1 && x.bytes)
        .map((d) => {
          const df = fields(d.bytes!);
          const value = df.find((x) => x.no === 1)?.varint;
          return value !== undefined ? Number(value) : text(df.find((x) => x.no === 2)?.bytes) || '?';
        })
    : [];
  return { name, dims };
}

/** The graph's inputs (those that are not initializers), outputs and the model's metadata_props. */
export function readOnnxSummary(file: Uint8Array): OnnxSummary {
  const top = fields(file);
  const graph = top.find((f) => f.no === 7)?.bytes;
  if (!top.some((f) => f.no === 1 && f.varint !== undefined) || !graph) throw new OnnxFormatError('no ONNX model (ir_version and graph) in the file');
  const g = fields(graph);
  const initializers = new Set(g.filter((f) => f.no === 5 && f.bytes).map((f) => text(fields(f.bytes!).find((x) => x.no === 8)?.bytes)));
  const metadata: Record<string, string> = {};
  for (const entry of top.filter((f) => f.no === 14 && f.bytes)) {
    const e = fields(entry.bytes!);
    metadata[text(e.find((x) => x.no === 1)?.bytes)] = text(e.find((x) => x.no === 2)?.bytes);
  }
  return {
    inputs: g.filter((f) => f.no === 11 && f.bytes).map((f) => tensorInfo(f.bytes!)).filter((t) => !initializers.has(t.name)),
    outputs: g.filter((f) => f.no === 12 && f.bytes).map((f) => tensorInfo(f.bytes!)),
    metadata,
  };
}

/** Ultralytics writes class names as a Python dict: {0: 'person', 1: "rider's bike"}. In index order. */
export function parseYoloNames(raw: string): string[] | null {
  const found = [...raw.matchAll(/(\d+)\s*:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g)].map((m) => ({ i: Number(m[1]), name: (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1') }));
  if (found.length === 0) return null;
  found.sort((a, b) => a.i - b.i);
  if (found.some((f, k) => f.i !== k)) return null;
  return found.map((f) => f.name);
}

export interface YoloModelInfo {
  kind: 'detect' | 'segment';
  /** v8 / 11: [1, 4 + classes (+ mask coefficients), anchors]; v5: [1, anchors, 5 + classes (+ mask coefficients)] */
  layout: 'yolov8' | 'yolov5';
  classes: string[];
  input_size: number;
}

export const EXPECTED_YOLO =
  'an Ultralytics YOLOv5, YOLOv8 or YOLO11 detect or segment export: one input [1, 3, H, W], output0 [1, 4 + classes (+ 32), anchors] (v8/11) or [1, anchors, 5 + classes (+ 32)] (v5), for segment a second output [1, 32, h, w], and the metadata "names" ({0: \'person\', ...}) that Ultralytics writes';

const num = (d: number | string | undefined) => (typeof d === 'number' && d > 0 ? d : null);

/** The model's kind, layout, classes and input size, or a sentence saying what does not fit EXPECTED_YOLO. */
export function yoloModelInfo(summary: OnnxSummary): YoloModelInfo | { problem: string } {
  const classes = summary.metadata.names ? parseYoloNames(summary.metadata.names) : null;
  if (!classes) return { problem: 'its metadata has no Ultralytics "names" (class names)' };
  const task = summary.metadata.task;
  if (task && task !== 'detect' && task !== 'segment') return { problem: `its task is "${task}"; only detect and segment are read` };
  if (summary.inputs.length !== 1) return { problem: `it has ${summary.inputs.length} inputs` };
  const input = summary.inputs[0]!.dims;
  const imgsz = (summary.metadata.imgsz ?? '').match(/\d+/g)?.map(Number) ?? [];
  const side = num(input[2]) ?? imgsz[0] ?? null;
  if (input.length !== 4 || input[1] !== 3 || !side) return { problem: `its input is [${input.join(', ')}], not [1, 3, H, W]` };
  const [out0, out1] = summary.outputs;
  if (!out0 || out0.dims.length !== 3) return { problem: `its first output is [${out0?.dims.join(', ') ?? ''}], not three dimensions` };
  const masks = out1 && out1.dims.length === 4 ? num(out1.dims[1]) : null;
  if (summary.outputs.length > 2 || (out1 && !masks)) return { problem: `its outputs are ${summary.outputs.map((o) => `[${o.dims.join(', ')}]`).join(', ')}` };
  const kind = masks ? 'segment' : 'detect';
  if (task && task !== kind) return { problem: `its metadata says ${task} but its outputs are a ${kind} model's` };
  const extra = masks ?? 0;
  const nc = classes.length;
  if (num(out0.dims[1]) === 4 + nc + extra) return { kind, layout: 'yolov8', classes, input_size: side };
  if (num(out0.dims[2]) === 5 + nc + extra) return { kind, layout: 'yolov5', classes, input_size: side };
  return { problem: `its first output [${out0.dims.join(', ')}] does not hold ${nc} classes${extra ? ` and ${extra} mask coefficients` : ''}` };
}
