// Shared by the Node.js benchmarks (executor_vs_ort.js, onnx_export_vs_input.js):
// the networks of docs/results.md with the flags egret needs for them, the
// model cache, and reading egret's .npy inputs as ONNX Runtime tensors.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');

function modelCache() {
  return process.env.EGRET_MODEL_CACHE || path.join(os.homedir(), '.cache/egret/models');
}

// onnxruntime-node from the model cache (scripts/fetch-models), and its version.
function loadOrt() {
  const dir = path.join(modelCache(), 'ort/node_modules/onnxruntime-node');
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    throw new Error(`${dir} is missing: run scripts/fetch-models`);
  }
  return { ort: require(dir),
           version: JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version };
}

// Every network of docs/results.md: { name, file, flags: extra egret flags
// (dims), ortFeeds: inputs egret freezes and ONNX Runtime must be fed }.
// `who` names the caller in the message about a missing directory; `large`
// adds the Llama decode steps.
function networks(who, { large = false } = {}) {
  const out = [];
  const light = path.resolve(root, '../shared/models/onnx-light');
  if (fs.existsSync(light)) {
    for (const f of fs.readdirSync(light).filter((f) => f.endsWith('.onnx')).sort()) {
      out.push({ name: path.basename(f, '.onnx'), file: path.join(light, f), flags: [] });
    }
  } else {
    process.stderr.write(`${who}: skipping the onnx-light networks: ${light} is missing\n`);
  }
  const cache = modelCache();
  for (const [f, h, w] of [['ch_ppocr_mobile_v2.0_cls_infer', 48, 192],
                           ['ch_PP-OCRv4_rec_infer', 48, 320],
                           ['ch_PP-OCRv4_det_infer', 320, 320]]) {
    out.push({ name: f, file: path.join(cache, 'ppocr', f + '.onnx'),
               flags: ['--input-shape', `x=1x3x${h}x${w}`] });
  }
  for (const f of ['face_detection_front_128x128_barracuda',
                   'face_detection_back_256x256_barracuda']) {
    out.push({ name: f, file: path.join(cache, 'blazeface', f + '.onnx'), flags: [] });
  }
  // Silero VAD: 512 samples at 16 kHz; egret freezes the sample rate (it
  // decides the model's If), ONNX Runtime is fed it.
  for (const f of ['silero_vad_v5', 'silero_vad_v6']) {
    out.push({ name: f, file: path.join(cache, 'silero', f + '.onnx'),
               flags: ['--input-shape', 'input=1x512', '--input-shape', 'state=2x1x128',
                       '--input-value', 'sr=16000'],
               ortFeeds: (ort) => ({ sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []) }) });
  }
  for (const f of ['mlsd/mlsd_320x320_tiny', 'mlsd/mlsd_512x512_large', 'isnet/isnet_fp16',
                   'isnet/isnet_quint8', 'qdq/qdq_resnet50', 'qdq/qdq_mobilenet',
                   'qdq/qdq_ppocr_cls']) {
    out.push({ name: path.basename(f), file: path.join(cache, f + '.onnx'), flags: [] });
  }
  // The Llama decode steps of docs/results.md (scripts/make-llama-decoder):
  // gigabytes each, so only when asked for.
  if (large) {
    for (const f of ['llama3_2_1b.decode_kv63.w4', 'llama3_2_1b.decode_kv63']) {
      out.push({ name: f, file: path.join(cache, 'llama', f + '.onnx'), flags: [] });
    }
  }
  return out;
}

// The stem `egret run` gives an input's .npy file (cli/run_commands.cc: FileStem).
function fileStem(name) {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

// .npy descr -> [ONNX Runtime tensor type, typed-array constructor]
const kTypes = {
  '<f4': ['float32', Float32Array], '<f2': ['float16', Uint16Array],
  '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array],
  '<u2': ['uint16', Uint16Array], '<i2': ['int16', Int16Array], '|b1': ['bool', Uint8Array],
};

function readNpy(ort, file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const hlen = buf[6] === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = buf[6] === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  const t = descr && kTypes[descr[1]];
  if (!t || !shape) throw new Error(`${file}: unsupported .npy header ${header}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const body = buf.subarray(start + hlen);
  const copy = new Uint8Array(body.length);
  copy.set(body);
  return new ort.Tensor(t[0], new t[1](copy.buffer, 0, body.length / t[1].BYTES_PER_ELEMENT), dims);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// Times fn(): { wall, cpu } in ms (cpu: this process's, all threads).
async function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e3, value };
}

// `--key value` pairs over `defaults` (a number default makes the value a
// number); --runs and --threads >= 1 and --repeat >= 2 are checked.
function parseArgs(argv, defaults) {
  const a = { ...defaults };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in a) || i + 1 >= argv.length) {
      throw new Error(`unknown or incomplete argument '${argv[i]}' (see the file comment)`);
    }
    const v = argv[++i];
    a[key] = typeof a[key] === 'number' ? Number(v) : v;
  }
  if (!(a.runs >= 1) || !(a.threads >= 1) || !(a.repeat >= 2)) {
    throw new Error('--runs and --threads must be >= 1, --repeat >= 2');
  }
  return a;
}

module.exports = { root, modelCache, loadOrt, networks, fileStem, readNpy, median, timed, parseArgs };
