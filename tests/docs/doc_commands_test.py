#!/usr/bin/python3
"""Runs the commands the docs show, so that they cannot go stale.

Usage: doc_commands_test.py EGRET [DOC.md...]
  EGRET: the built `egret` binary (ctest passes $<TARGET_FILE:egret_cli>).
  DOC.md: the docs to check (default: README.md, docs/getting-started.md,
  docs/first-rule.md).

The doc-test convention (Markdown):

  ```sh doc-test
  egret optimize examples/residual_block.json --verify
  ```
      A shell block that this test runs. Its info string is `sh doc-test`,
      optionally followed by `exit=N` when the block is expected to exit
      with N (default 0), e.g. ```sh doc-test exit=1 for a rule that verify
      rejects. A block may hold several commands, heredocs included
      (`cat > tiny.json <<'EOF' ... EOF` writes the file the doc writes).

  ```text doc-output
  verify: ok
  ...
  ```
      Output of the doc-test block just before it (stdout and stderr
      together). Every line must appear as a line of the output (leading and
      trailing spaces ignored; in any order, since stdout and stderr
      interleave differently through a pipe). A line ending in `...`
      matches any output line that starts with the text before `...`; a line
      that is only `...` is skipped (the doc left lines out). Decimal numbers
      that vary from run to run (times, bytes of peak RSS) should be left out
      with `...`.

  ```python doc-test
  import egret
  ```
      A Python block that this test runs with the interpreter running this
      test (docs/python.md; ctest gives it the built module on PYTHONPATH),
      in the same directory as the shell blocks; `exit=N` and a doc-output
      block after it work as for a shell block.

  Blocks tagged plain ```sh (no doc-test) are not run: the ones that set up
  and build egret (scripts/demo, scripts/test, scripts/build), need a network,
  a model download, PyTorch, a phone or the QNN SDK.

The blocks of one doc run in order, each with `bash -e -o pipefail`, in one
fresh temporary directory per doc (so a later block sees the files an earlier
one wrote), with a copy of the repository's `examples/` in it and a directory
holding an `egret` that runs EGRET first on PATH. Exit 0 when every block of
every doc exits as declared and its output matches; 1 otherwise, naming the
doc, the block's line and what differed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DOCS = ["README.md", "docs/getting-started.md", "docs/first-rule.md"]
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(.*)$")


class Block:
    def __init__(self, line, info, text):
        self.line = line  # 1-based line of the opening fence
        self.info = info.split()
        self.text = text


def fenced_blocks(path):
    """Every fenced code block of a Markdown file, with its info string."""
    blocks = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3)
        body = []
        j = i + 1
        while j < len(lines):
            close = lines[j].strip()
            if close.startswith(fence[0] * len(fence)) and close.strip(fence[0]) == "":
                break
            line = lines[j]
            body.append(line[len(indent):] if line.startswith(indent) else line)
            j += 1
        blocks.append(Block(i + 1, info, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def doc_tests(path):
    """(command block, expected exit, expected output lines or None) per doc-test block."""
    tests = []
    for b in fenced_blocks(path):
        if len(b.info) >= 2 and b.info[1] == "doc-test":
            if b.info[0] not in ("sh", "bash", "console", "shell", "python"):
                raise SystemExit(
                    f"{path}:{b.line}: a doc-test block must be sh or python, not {b.info[0]}")
            code = 0
            for opt in b.info[2:]:
                if opt.startswith("exit="):
                    code = int(opt[len("exit="):])
                else:
                    raise SystemExit(f"{path}:{b.line}: unknown doc-test option '{opt}'")
            tests.append([b, code, None])
        elif len(b.info) >= 2 and b.info[1] == "doc-output":
            if not tests or tests[-1][2] is not None:
                raise SystemExit(f"{path}:{b.line}: a doc-output block must follow a doc-test block")
            tests[-1][2] = [l.strip() for l in b.text.split("\n") if l.strip()]
    return tests


def match_output(expected, output):
    """The first expected line that no output line matches, or None."""
    got = [l.strip() for l in output.split("\n")]
    for want in expected:
        if want == "...":
            continue
        if want.endswith("..."):
            text = want[:-3].rstrip()
            if not any(g.startswith(text) for g in got):
                return want
        elif want not in got:
            return want
    return None


def run_doc(doc, egret, failures):
    path = os.path.join(ROOT, doc)
    tests = doc_tests(path)
    if not tests:
        failures.append(f"{doc}: no doc-test blocks")
        return
    with tempfile.TemporaryDirectory(prefix="egret-doc-") as tmp:
        bindir = os.path.join(tmp, ".bin")
        os.mkdir(bindir)
        wrapper = os.path.join(bindir, "egret")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\nexec "{os.path.abspath(egret)}" "$@"\n')
        os.chmod(wrapper, 0o755)
        work = os.path.join(tmp, "work")
        shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(work, "examples"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        for block, code, expected in tests:
            where = f"{doc}:{block.line}"
            if block.info[0] == "python":
                command = [sys.executable, "-c", block.text]
            else:
                command = ["bash", "-e", "-o", "pipefail", "-c", block.text]
            r = subprocess.run(command, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=600)
            ok = True
            if r.returncode != code:
                failures.append(f"{where}: exit {r.returncode}, the doc says {code}")
                ok = False
            elif expected is not None:
                missing = match_output(expected, r.stdout)
                if missing is not None:
                    failures.append(f"{where}: output has no line '{missing}'")
                    ok = False
            print(f"{'ok  ' if ok else 'FAIL'} {where}: {block.text.strip().splitlines()[0]}")
            if not ok:
                print("  block:\n" + "".join("    " + l + "\n" for l in block.text.strip().split("\n")))
                print("  output:\n" + "".join("    " + l + "\n" for l in r.stdout.rstrip().split("\n")))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    egret = sys.argv[1]
    if not os.access(egret, os.X_OK):
        print(f"{egret}: not an executable")
        return 2
    failures = []
    for doc in sys.argv[2:] or DEFAULT_DOCS:
        run_doc(doc, egret, failures)
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
