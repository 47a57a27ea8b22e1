#!/usr/bin/env node
// egret's reference executor (`egret run`) against ONNX Runtime's CPU
// provider (npm onnxruntime-node, from the model cache scripts/fetch-models
// fills), side by side on the same networks and the same inputs; prints one
// Markdown table per thread count (1, and N = all cores unless --threads).
//
//   node bench/executor_vs_ort.js [--egret build/cli/egret] [--runs 3]
//       [--repeat 4] [--seed 0] [--filter REGEX] [--threads N]
//
// Networks: every network of docs/results.md: ../shared/models/onnx-light,
// and from the model cache ($EGRET_MODEL_CACHE, else ~/.cache/egret/models)
// PP-OCR, BlazeFace, silero VAD, M-LSD, IS-Net and the QDQ networks, at the
// input sizes docs/results.md uses; a missing one is skipped with a message
// on stderr.
//
// Per network: `egret run --random SEED --save-inputs DIR` writes the seeded
// inputs (backend/test_data.h) as .npy files, which ONNX Runtime is fed. Then
// --runs rounds; in each, per thread count, one `egret run --repeat R
// --threads T` process and one new ONNX Runtime session (intraOpNumThreads
// T, interOpNumThreads 1, graph optimizations on) run R times, interleaved so
// that load from other processes hits both alike.
//   - warm: the median of runs 2..R: egret's "time of runs 2-R" line (its
//     oneDNN kernels compiled and cached), ONNX Runtime's session.run.
//   - first: egret's first run in its process ("time: ... run X ms": reading
//     and importing the model are not in it), and ONNX Runtime's session
//     creation (graph optimization, weight prepacking) plus its first run.
// CPU time is all threads': egret's "cpu", and this process's
// process.cpuUsage() around session.run. Reported: medians over the rounds.
// Exit 0 when every network present ran, 1 otherwise.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const { root, loadOrt, networks, fileStem, readNpy, median, timed, parseArgs } = require('./bench_networks');


// Runs `egret run --repeat R` and returns its executor's first run and the
// median of its later runs: { first: { wall, cpu }, warm: { wall, cpu } } in ms.
function egretRun(args, net, extra) {
  const r = spawnSync(args.egret, ['run', net.file, ...net.flags, '--random', String(args.seed),
                                   '--repeat', String(args.repeat), ...extra],
                      { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    throw new Error(`egret run ${net.name} failed (exit ${r.status}): ${(r.stderr || '').trim()}`);
  }
  const m = /^time: .*\brun ([0-9.]+) ms \(cpu ([0-9.]+) ms\)$/m.exec(r.stdout);
  const w = /^time of runs 2-[0-9]+: median ([0-9.]+) ms \(cpu ([0-9.]+) ms\)/m.exec(r.stdout);
  if (!m || !w) {
    throw new Error(`egret run ${net.name}: no "time: ... run X ms (cpu Y ms)" and ` +
                    '"time of runs 2-N: median X ms (cpu Y ms)" lines in its output');
  }
  return { first: { wall: Number(m[1]), cpu: Number(m[2]) },
           warm: { wall: Number(w[1]), cpu: Number(w[2]) } };
}

async function main() {
  const args = parseArgs(process.argv.slice(2), { egret: path.join(root, 'build/cli/egret'), runs: 3, repeat: 4, seed: 0, filter: '',
                           threads: os.cpus().length });
  if (!fs.existsSync(args.egret)) throw new Error(`${args.egret} is missing: build egret first`);
  const { ort, version: ortVersion } = loadOrt();
  const configs = [1, args.threads];
  const filter = new RegExp(args.filter);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'egret_vs_ort_'));
  const rows = [];  // per network: { name, per config: { egret: {first, warm}, ort: {first, warm} } }
  let failed = false;
  const makeSession = (file, t) => ort.InferenceSession.create(file, {
    executionProviders: ['cpu'], intraOpNumThreads: t, interOpNumThreads: 1,
    graphOptimizationLevel: 'all', logSeverityLevel: 3 });
  for (const net of networks('executor_vs_ort').filter((n) => filter.test(n.name))) {
    if (!fs.existsSync(net.file)) {
      process.stderr.write(`executor_vs_ort: skipping ${net.name}: ${net.file} is missing\n`);
      continue;
    }
    try {
      const dir = path.join(tmp, net.name);
      const saved = spawnSync(args.egret, ['run', net.file, ...net.flags, '--random',
                                           String(args.seed), '--save-inputs', dir],
                              { encoding: 'utf8', maxBuffer: 64 << 20 });
      if (saved.status !== 0) {
        throw new Error(`egret run ${net.name} failed (exit ${saved.status}): ` +
                        (saved.stderr || '').trim());
      }
      // Graph inputs egret saved, and the ones it froze; the others (ONNX
      // initializers listed as inputs) keep their initializer values in both.
      const names = (await makeSession(net.file, 1)).inputNames;
      const feeds = net.ortFeeds ? net.ortFeeds(ort) : {};
      for (const name of names) {
        const file = path.join(dir, fileStem(name) + '.npy');
        if (fs.existsSync(file)) feeds[name] = readNpy(ort, file);
      }
      const samples = configs.map(() => ({ egretFirst: [], egretWarm: [], ortFirst: [], ortWarm: [] }));
      for (let r = 0; r < args.runs; ++r) {
        for (let c = 0; c < configs.length; ++c) {
          const e = egretRun(args, net, ['--threads', String(configs[c])]);
          samples[c].egretFirst.push(e.first);
          samples[c].egretWarm.push(e.warm);
          // ONNX Runtime's first run: creating the session (graph
          // optimization, weight prepacking) and running it once.
          const first = await timed(async () => {
            const s = await makeSession(net.file, configs[c]);
            await s.run(feeds);
            return s;
          });
          samples[c].ortFirst.push(first);
          const session = first.value;
          for (let k = 1; k < args.repeat; ++k) {
            samples[c].ortWarm.push(await timed(() => session.run(feeds)));
          }
          if (session.release) await session.release();
        }
      }
      const pick = (xs) => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
      const row = { name: net.name, configs: samples.map((s) => ({
        egret: { first: pick(s.egretFirst), warm: pick(s.egretWarm) },
        ort: { first: pick(s.ortFirst), warm: pick(s.ortWarm) } })) };
      rows.push(row);
      process.stderr.write(`executor_vs_ort: ${net.name}: warm egret ` +
                           `${row.configs.map((x) => x.egret.warm.wall.toFixed(1))} ms, ONNX Runtime ` +
                           `${row.configs.map((x) => x.ort.warm.wall.toFixed(1))} ms\n`);
    } catch (e) {
      failed = true;
      process.stderr.write(`executor_vs_ort: ${net.name}: error: ${e.message.split('\n')[0]}\n`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });

  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  let md = `ONNX Runtime ${ortVersion} CPU provider; ${args.runs} rounds, each one \`egret run ` +
           `--repeat ${args.repeat}\` process and one new ONNX Runtime session run ${args.repeat} ` +
           `times, per thread count; medians; seed ${args.seed}; wall times in ms. "First" is ` +
           `egret's first run in its process and ONNX Runtime's session creation plus first run; ` +
           `"warm" the median of the later runs.\n`;
  for (let c = 0; c < configs.length; ++c) {
    md += `\n${configs[c]} thread${configs[c] > 1 ? 's' : ''}:\n\n`;
    md += '| network | egret warm | ORT warm | ratio | egret warm CPU | ORT warm CPU | CPU ratio | ' +
          'egret first | ORT first | ratio |\n';
    md += '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
    const ratios = [[], [], []];
    for (const r of rows) {
      const x = r.configs[c];
      const parts = [[x.egret.warm.wall, x.ort.warm.wall], [x.egret.warm.cpu, x.ort.warm.cpu],
                     [x.egret.first.wall, x.ort.first.wall]];
      const cells = [r.name];
      parts.forEach(([e, o], k) => {
        ratios[k].push(e / o);
        cells.push(f(e), f(o), (e / o).toFixed(2) + 'x');
      });
      md += `| ${cells.join(' | ')} |\n`;
    }
    if (rows.length) {
      const worst = (xs) => Math.max(...xs).toFixed(2);
      md += `| median ratio (worst) | | | ${median(ratios[0]).toFixed(2)}x (${worst(ratios[0])}x) | | | ` +
            `${median(ratios[1]).toFixed(2)}x (${worst(ratios[1])}x) | | | ` +
            `${median(ratios[2]).toFixed(2)}x (${worst(ratios[2])}x) |\n`;
    }
  }
  process.stdout.write(md);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  process.stderr.write(`executor_vs_ort: error: ${e.message.split('\n')[0]}\n`);
  process.exit(1);
});
