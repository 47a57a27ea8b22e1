#!/usr/bin/env node
// Runs an ONNX model on ONNX Runtime's CPU provider: the independent oracle
// egret's importer and reference executor are checked against
// (tests/ort/ort_oracle_test.cc).
//
//   node ort_run.js ORT_MODULE_DIR MODEL.onnx OUT_DIR THREADS OPT [NAME=IN.npy ...]
//
// OPT is ONNX Runtime's graph optimization level: 'all' or 'disabled'.
// Feeds each named graph input from its .npy file (NumPy 1.0, little-endian,
// C order), runs the model, and writes output k as OUT_DIR/<k>.npy and the
// output names, one per line, as OUT_DIR/outputs.txt. Prints the run's wall
// time in milliseconds. Exit 0 on success, 1 (with a one-line message on
// stderr) on any error.
'use strict';
const fs = require('fs');
const path = require('path');

// .npy descr -> [ONNX Runtime tensor type, typed-array constructor]
const kTypes = {
  '<f4': ['float32', Float32Array], '<f2': ['float16', Uint16Array],
  '<i4': ['int32', Int32Array], '<i8': ['int64', BigInt64Array],
  '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array],
  '<u2': ['uint16', Uint16Array], '<i2': ['int16', Int16Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) {
    throw new Error(`${file}: unsupported .npy header ${header}`);
  }
  const t = kTypes[descr[1]];
  if (!t) throw new Error(`${file}: unsupported element type ${descr[1]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const body = buf.subarray(start + hlen);
  const copy = new Uint8Array(body.length);
  copy.set(body);
  let data = new t[1](copy.buffer, 0, body.length / t[1].BYTES_PER_ELEMENT);
  if (t[0] === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  return { type: t[0], data, dims };
}

function writeNpy(file, tensor) {
  const entry = Object.entries(kTypes).find(([, t]) => t[0] === tensor.type);
  if (!entry) throw new Error(`output type ${tensor.type} cannot be written`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${entry[0]}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  let data = tensor.data;
  if (tensor.type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), bytes]));
}

async function main() {
  const [moduleDir, model, outDir, threads, opt, ...feeds] = process.argv.slice(2);
  if (!moduleDir || !model || !outDir || !threads || !['all', 'disabled'].includes(opt)) {
    throw new Error(
      'usage: ort_run.js ORT_MODULE_DIR MODEL.onnx OUT_DIR THREADS all|disabled [NAME=IN.npy ...]');
  }
  const ort = require(path.resolve(moduleDir));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    graphOptimizationLevel: opt,
    logSeverityLevel: 3,
  });
  const inputs = {};
  for (const f of feeds) {
    const eq = f.indexOf('=');
    const npy = readNpy(f.slice(eq + 1));
    inputs[f.slice(0, eq)] = new ort.Tensor(npy.type, npy.data, npy.dims);
  }
  const t0 = process.hrtime.bigint();
  const results = await session.run(inputs);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((name, k) => writeNpy(path.join(outDir, `${k}.npy`), results[name]));
  fs.writeFileSync(path.join(outDir, 'outputs.txt'), session.outputNames.join('\n') + '\n');
  process.stdout.write(`${ms}\n`);
}

main().catch((e) => {
  process.stderr.write(`ort_run.js: error: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
});
