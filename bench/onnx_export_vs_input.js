#!/usr/bin/env node
// The ONNX file `egret optimize -o out.onnx` writes against the ONNX file it
// was given, side by side on ONNX Runtime's CPU provider (npm
// onnxruntime-node, from the model cache scripts/fetch-models fills), for
// every network of docs/results.md; prints a Markdown table
// (docs/onnx-export.md, "Against the input").
//
//   node bench/onnx_export_vs_input.js [--egret build/cli/egret] [--runs 5]
//       [--repeat 10] [--seed 0] [--filter REGEX] [--threads 1] [--keep DIR]
//       [--egret-flags "..."] [--large 1]
//
// --large 1 adds the Llama decode steps of docs/results.md (gigabytes each;
// scripts/make-llama-decoder writes them).
// Per network: `egret optimize NET -o DIR/NET.onnx` (plus the network's dims
// and --egret-flags), then the counts of both files: ONNX nodes,
// Transposes, Identities, file size (with external data). Then --runs
// rounds; in each a new ONNX Runtime session of the input and one of the
// output (intraOpNumThreads --threads, interOpNumThreads 1, graph
// optimizations on), in alternating order, each run --repeat times on the
// same seeded inputs (`egret run --random SEED --save-inputs`). Reported:
// the median over rounds of each session's median warm run (runs 2..R),
// their ratio, and the largest absolute difference between the two
// models' outputs on ONNX Runtime.
// Exit 0 when every network present ran, 1 otherwise.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const { root, loadOrt, networks, fileStem, readNpy, median, timed, parseArgs } = require('./bench_networks');


// A minimal protobuf walk over a serialized ModelProto (ModelProto.graph = 7):
// the op_type of each node, subgraphs included.
function readVarint(buf, pos) {
  let v = 0, mul = 1;
  for (;;) {
    const b = buf[pos++];
    v += (b & 0x7f) * mul;
    if (b < 0x80) return [v, pos];
    mul *= 128;
  }
}
function fields(buf, start, end, fn) {
  let pos = start;
  while (pos < end) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Math.floor(key / 8), wire = key & 7;
    if (wire === 0) {
      [, pos] = readVarint(buf, pos);
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      fn(field, pos, pos + len);
      pos += len;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
}
function modelStats(file) {
  const buf = fs.readFileSync(file);
  const ops = {};
  let nodes = 0;
  // GraphProto.node = 1; NodeProto.op_type = 4, .attribute = 5;
  // AttributeProto.g = 6, .graphs = 11: bodies of If, Loop and Scan count too.
  const graph = (s, e) => fields(buf, s, e, (g, gs, ge) => {
    if (g !== 1) return;
    ++nodes;
    fields(buf, gs, ge, (n, ns, ne) => {
      if (n === 4) {
        const op = buf.toString('utf8', ns, ne);
        ops[op] = (ops[op] || 0) + 1;
      } else if (n === 5) {
        fields(buf, ns, ne, (a, as, ae) => { if (a === 6 || a === 11) graph(as, ae); });
      }
    });
  });
  fields(buf, 0, buf.length, (f, s, e) => { if (f === 7) graph(s, e); });
  let bytes = buf.length;
  const data = file + '.data';
  if (fs.existsSync(data)) bytes += fs.statSync(data).size;
  return { nodes, transposes: ops.Transpose || 0, identities: ops.Identity || 0, bytes, ops };
}

function maxAbsDiff(a, b) {
  let m = 0;
  for (const name of Object.keys(a)) {
    const x = a[name].data, y = b[name] && b[name].data;
    if (!y || x.length !== y.length) return Infinity;
    for (let i = 0; i < x.length; ++i) {
      const d = Math.abs(Number(x[i]) - Number(y[i]));
      if (d > m || Number.isNaN(d)) m = Number.isNaN(d) ? Infinity : d;
    }
  }
  return m;
}

async function main() {
  const args = parseArgs(process.argv.slice(2), { egret: path.join(root, 'build/cli/egret'), runs: 5, repeat: 10, seed: 0, filter: '',
                           threads: 1, keep: '', 'egret-flags': '', large: 0 });
  if (!fs.existsSync(args.egret)) throw new Error(`${args.egret} is missing: build egret first`);
  const { ort, version } = loadOrt();
  const filter = new RegExp(args.filter);
  const tmp = args.keep || fs.mkdtempSync(path.join(os.tmpdir(), 'egret_export_'));
  fs.mkdirSync(tmp, { recursive: true });
  const extra = args['egret-flags'].split(/\s+/).filter((s) => s.length);
  const makeSession = (file) => ort.InferenceSession.create(file, {
    executionProviders: ['cpu'], intraOpNumThreads: args.threads, interOpNumThreads: 1,
    graphOptimizationLevel: 'all', logSeverityLevel: 3 });
  const rows = [];
  let failed = false;
  for (const net of networks('onnx_export_vs_input', { large: args.large > 0 }).filter((n) => filter.test(n.name))) {
    if (!fs.existsSync(net.file)) {
      process.stderr.write(`onnx_export_vs_input: skipping ${net.name}: ${net.file} is missing\n`);
      continue;
    }
    try {
      const out = path.join(tmp, net.name + '.onnx');
      const opt = spawnSync(args.egret, ['optimize', net.file, ...net.flags, ...extra, '-o', out],
                            { encoding: 'utf8', maxBuffer: 64 << 20 });
      if (opt.status !== 0) {
        throw new Error(`egret optimize failed (exit ${opt.status}): ${(opt.stderr || '').trim()}`);
      }
      const dir = path.join(tmp, net.name + '.inputs');
      const saved = spawnSync(args.egret, ['run', net.file, ...net.flags, '--random',
                                           String(args.seed), '--save-inputs', dir],
                              { encoding: 'utf8', maxBuffer: 64 << 20 });
      if (saved.status !== 0) {
        throw new Error(`egret run failed (exit ${saved.status}): ${(saved.stderr || '').trim()}`);
      }
      const feedsFor = (session) => {
        const feeds = net.ortFeeds ? net.ortFeeds(ort) : {};
        for (const name of session.inputNames) {
          const file = path.join(dir, fileStem(name) + '.npy');
          if (fs.existsSync(file)) feeds[name] = readNpy(ort, file);
        }
        for (const k of Object.keys(feeds)) if (!session.inputNames.includes(k)) delete feeds[k];
        return feeds;
      };
      const files = [net.file, out];
      const warm = [[], []];
      const results = [null, null];
      for (let r = 0; r < args.runs; ++r) {
        const order = r % 2 ? [1, 0] : [0, 1];
        for (const k of order) {
          const s = await makeSession(files[k]);
          const feeds = feedsFor(s);
          results[k] = await s.run(feeds);
          const times = [];
          for (let i = 1; i < args.repeat; ++i) times.push((await timed(() => s.run(feeds))).wall);
          warm[k].push(median(times));
          if (s.release) await s.release();
        }
      }
      const row = { name: net.name, stats: files.map(modelStats), ms: warm.map(median),
                    diff: maxAbsDiff(results[0], results[1]) };
      rows.push(row);
      process.stderr.write(`onnx_export_vs_input: ${net.name}: nodes ${row.stats[0].nodes} -> ` +
                           `${row.stats[1].nodes}, ${row.ms[0].toFixed(2)} -> ` +
                           `${row.ms[1].toFixed(2)} ms\n`);
    } catch (e) {
      failed = true;
      process.stderr.write(`onnx_export_vs_input: ${net.name}: error: ${e.message.split('\n')[0]}\n`);
    }
  }
  if (!args.keep) fs.rmSync(tmp, { recursive: true, force: true });

  const mb = (b) => (b / 1048576).toFixed(b >= 10 * 1048576 ? 0 : 2);
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
  let md = `ONNX Runtime ${version} CPU provider, ${args.threads} thread${args.threads > 1 ? 's' : ''}, ` +
           `graph optimizations on; ${args.runs} rounds of one new session per file run ` +
           `${args.repeat} times; median warm run in ms; seed ${args.seed}.\n\n`;
  md += '| network | ONNX nodes in -> out | Transpose in -> out | Identity out | MiB in -> out | ' +
        'ORT ms in | ORT ms out | out / in | max abs diff |\n';
  md += '|---|---|---|---:|---|---:|---:|---:|---:|\n';
  const ratios = [];
  for (const r of rows) {
    const [a, b] = r.stats;
    ratios.push(r.ms[1] / r.ms[0]);
    md += `| ${r.name} | ${a.nodes} -> ${b.nodes} | ${a.transposes} -> ${b.transposes} | ` +
          `${b.identities} | ${mb(a.bytes)} -> ${mb(b.bytes)} | ${f(r.ms[0])} | ${f(r.ms[1])} | ` +
          `${(r.ms[1] / r.ms[0]).toFixed(3)} | ${r.diff.toPrecision(2)} |\n`;
  }
  if (rows.length) {
    md += `| median (worst) | | | | | | | ${median(ratios).toFixed(3)} ` +
          `(${Math.max(...ratios).toFixed(3)}) | |\n`;
  }
  process.stdout.write(md);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`onnx_export_vs_input: error: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
});
