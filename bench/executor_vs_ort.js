#!/usr/bin/env node
// egret's reference executor (`egret run`) against ONNX Runtime's CPU
// provider (npm onnxruntime-node, from the model cache scripts/fetch-models
// fills), side by side on the same networks and the same inputs, and prints a
// Markdown table: per network the median run time of each over --runs runs.
//
//   node bench/executor_vs_ort.js [--egret build/cli/egret] [--runs 3]
//       [--seed 0] [--filter REGEX] [--threads N]
//
// Networks: ../shared/models/onnx-light/*.onnx, PP-OCR det/rec/cls and
// BlazeFace from the model cache ($EGRET_MODEL_CACHE, else
// ~/.cache/egret/models), at the input sizes docs/results.md uses; a missing
// one is skipped with a message on stderr.
//
// Per network: `egret run --random SEED --save-inputs DIR` makes the seeded
// inputs (backend/test_data.h) and writes them as .npy files, which ONNX
// Runtime is fed (that run is egret's first sample: each `egret run` is a
// fresh process, so none is a warm-up); two sessions are created
// (intraOpNumThreads 1 and N, N = all cores unless --threads;
// interOpNumThreads 1; graph optimizations on) and run once each to warm up;
// then --runs rounds, each running `egret run` (but for the first) and each
// session once, interleaved, so that load from other processes hits all
// alike. egret's time is the executor's own ("time: ... run X ms" of `egret
// run`: reading and importing the model are not in it), ONNX Runtime's the
// wall time of session.run; for 1 thread also CPU time (egret's "cpu", and
// this process's process.cpuUsage() around session.run). When `egret run
// --help` lists --threads, egret runs with --threads 1 and --threads N beside
// the matching session; else egret runs single-threaded and both ratios use
// that time (the table says so). Exit 0 when every network present ran, 1 otherwise.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const a = { egret: path.join(root, 'build/cli/egret'), runs: 3, seed: 0, filter: '',
              threads: os.cpus().length };
  for (let i = 0; i < argv.length; ++i) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in a) || i + 1 >= argv.length) {
      throw new Error(`unknown or incomplete argument '${argv[i]}' (see the file comment)`);
    }
    const v = argv[++i];
    a[key] = typeof a[key] === 'number' ? Number(v) : v;
  }
  if (!(a.runs >= 1) || !(a.threads >= 1)) throw new Error('--runs and --threads must be >= 1');
  return a;
}

function modelCache() {
  return process.env.EGRET_MODEL_CACHE || path.join(os.homedir(), '.cache/egret/models');
}

// { name, file, flags: extra `egret run` flags (dims) }
function networks() {
  const out = [];
  const light = path.resolve(root, '../shared/models/onnx-light');
  if (fs.existsSync(light)) {
    for (const f of fs.readdirSync(light).filter((f) => f.endsWith('.onnx')).sort()) {
      out.push({ name: path.basename(f, '.onnx'), file: path.join(light, f), flags: [] });
    }
  } else {
    process.stderr.write(`executor_vs_ort: skipping the onnx-light networks: ${light} is missing\n`);
  }
  const cache = modelCache();
  for (const [f, h, w] of [['ch_ppocr_mobile_v2.0_cls_infer', 48, 192],
                           ['ch_PP-OCRv4_rec_infer', 48, 320],
                           ['ch_PP-OCRv4_det_infer', 320, 320]]) {
    out.push({ name: f, file: path.join(cache, 'ppocr', f + '.onnx'),
               flags: ['--dim', 'p2o.DynamicDimension.0=1', '--dim', `p2o.DynamicDimension.1=${h}`,
                       '--dim', `p2o.DynamicDimension.2=${w}`] });
  }
  for (const f of ['face_detection_front_128x128_barracuda',
                   'face_detection_back_256x256_barracuda']) {
    out.push({ name: f, file: path.join(cache, 'blazeface', f + '.onnx'), flags: [] });
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

// Runs `egret run` and returns its executor's { wall, cpu } time in ms.
function egretRun(args, net, extra) {
  const r = spawnSync(args.egret, ['run', net.file, ...net.flags, '--random', String(args.seed),
                                   ...extra], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    throw new Error(`egret run ${net.name} failed (exit ${r.status}): ${(r.stderr || '').trim()}`);
  }
  const m = /^time: .*\brun ([0-9.]+) ms \(cpu ([0-9.]+) ms\)$/m.exec(r.stdout);
  if (!m) {
    throw new Error(`egret run ${net.name}: no "time: ... run X ms (cpu Y ms)" line in its output`);
  }
  return { wall: Number(m[1]), cpu: Number(m[2]) };
}

// One session.run: { wall, cpu } in ms (cpu: this process's, all threads).
async function ortRun(session, feeds) {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await session.run(feeds);
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1e3 };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ortDir = path.join(modelCache(), 'ort/node_modules/onnxruntime-node');
  if (!fs.existsSync(path.join(ortDir, 'package.json'))) {
    throw new Error(`${ortDir} is missing: run scripts/fetch-models`);
  }
  if (!fs.existsSync(args.egret)) throw new Error(`${args.egret} is missing: build egret first`);
  const ort = require(ortDir);
  const ortVersion = JSON.parse(fs.readFileSync(path.join(ortDir, 'package.json'), 'utf8')).version;
  const help = spawnSync(args.egret, ['run', '--help'], { encoding: 'utf8' }).stdout || '';
  const egretThreads = /--threads\b/.test(help);
  const configs = [1, args.threads];
  const filter = new RegExp(args.filter);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'egret_vs_ort_'));
  const rows = [];
  let failed = false;
  for (const net of networks().filter((n) => filter.test(n.name))) {
    if (!fs.existsSync(net.file)) {
      process.stderr.write(`executor_vs_ort: skipping ${net.name}: ${net.file} is missing\n`);
      continue;
    }
    try {
      const dir = path.join(tmp, net.name);
      // egret's first run also writes the seeded inputs; each `egret run` is
      // a fresh process, so it needs no warm-up and this is its first sample.
      const egretThreadFlags = (c) => (egretThreads ? ['--threads', String(configs[c])] : []);
      const first = egretRun(args, net, ['--save-inputs', dir, ...egretThreadFlags(0)]);
      const sessions = [];
      for (const t of configs) {
        sessions.push(await ort.InferenceSession.create(net.file, {
          executionProviders: ['cpu'], intraOpNumThreads: t, interOpNumThreads: 1,
          graphOptimizationLevel: 'all', logSeverityLevel: 3 }));
      }
      // Graph inputs egret saved; the others (ONNX initializers listed as
      // inputs) keep their initializer values in both runtimes.
      const feeds = {};
      for (const name of sessions[0].inputNames) {
        const file = path.join(dir, fileStem(name) + '.npy');
        if (fs.existsSync(file)) feeds[name] = readNpy(ort, file);
      }
      for (const s of sessions) await ortRun(s, feeds);
      const egretMs = configs.map(() => []);
      const ortMs = configs.map(() => []);
      for (let r = 0; r < args.runs; ++r) {
        for (let c = 0; c < configs.length; ++c) {
          if (r === 0 && c === 0) {
            egretMs[c].push(first);
          } else if (egretThreads || c === 0) {
            egretMs[c].push(egretRun(args, net, egretThreadFlags(c)));
          }
          ortMs[c].push(await ortRun(sessions[c], feeds));
        }
      }
      const row = { name: net.name, egret: [], ort: [] };
      const pick = (xs, k) => median(xs.map((x) => x[k]));
      for (let c = 0; c < configs.length; ++c) {
        const e = egretMs[egretThreads ? c : 0];
        row.egret.push({ wall: pick(e, 'wall'), cpu: pick(e, 'cpu') });
        row.ort.push({ wall: pick(ortMs[c], 'wall'), cpu: pick(ortMs[c], 'cpu') });
      }
      rows.push(row);
      process.stderr.write(`executor_vs_ort: ${net.name}: egret ${row.egret.map((x) => x.wall.toFixed(1))} ms, ` +
                           `ONNX Runtime ${row.ort.map((x) => x.wall.toFixed(1))} ms\n`);
      for (const s of sessions) if (s.release) await s.release();
    } catch (e) {
      failed = true;
      process.stderr.write(`executor_vs_ort: ${net.name}: error: ${e.message.split('\n')[0]}\n`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });

  const n = args.threads;
  const egretNote = egretThreads ? '' : ' egret ran single-threaded (`egret run` has no --threads), ' +
                                        'so both egret columns are the same runs.';
  let md = `ONNX Runtime ${ortVersion} CPU provider; median of ${args.runs} interleaved runs; ` +
           `seed ${args.seed}; wall time of one run in ms, and for 1 thread also CPU time ` +
           `(less sensitive to other load on the machine).${egretNote}\n\n`;
  md += `| network | egret 1 thread | ORT 1 thread | ratio | egret CPU | ORT CPU | CPU ratio | ` +
        `egret ${egretThreads ? n + ' threads' : '(1 thread)'} | ORT ${n} threads | ratio |\n`;
  md += '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  const ratios = [[], [], []];
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  for (const r of rows) {
    const parts = [[r.egret[0].wall, r.ort[0].wall], [r.egret[0].cpu, r.ort[0].cpu],
                   [r.egret[1].wall, r.ort[1].wall]];
    const cells = [r.name];
    parts.forEach(([e, o], k) => {
      ratios[k].push(e / o);
      cells.push(f(e), f(o), (e / o).toFixed(1) + 'x');
    });
    md += `| ${cells.join(' | ')} |\n`;
  }
  if (rows.length) {
    md += `| median ratio | | | ${median(ratios[0]).toFixed(1)}x | | | ` +
          `${median(ratios[1]).toFixed(1)}x | | | ${median(ratios[2]).toFixed(1)}x |\n`;
  }
  process.stdout.write(md);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`executor_vs_ort: error: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
});
