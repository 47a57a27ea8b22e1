#!/usr/bin/python3
"""Checks that the docs' relative links and their #anchors resolve.

Usage: doc_links_test.py [FILE.md...]
  FILE.md: the Markdown files to check (default: README.md and every .md
  under docs/ and python/).

A link is `[text](target)` or `![alt](target)` outside fenced code blocks
and inline code. Targets with a scheme (http:, https:, mailto:) are not
followed. A relative target must name an existing file or directory,
relative to the linking file; a `#fragment` must be the GitHub anchor of a
heading of the target (or of the linking file for `#fragment` alone):
lower-cased, punctuation other than `-` and `_` dropped, spaces turned
into `-`, and `-1`, `-2`... appended to repeated headings.

Exit 0 when every link resolves; 1 otherwise, with one line per broken
link: `file:line: error: ...`.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"`+[^`]*`+")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    out = []
    fence = None
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f.read().split("\n"), start=1):
            m = FENCE.match(line)
            if m:
                # A block closes at a fence of its own character, at least as
                # long as the one that opened it, with nothing after it.
                if fence is None:
                    fence = m.group(1)
                    continue
                if m.group(1).startswith(fence) and not line[m.end():].strip():
                    fence = None
                    continue
            if fence is None:
                out.append((i, line))
    return out


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = INLINE_CODE.sub(lambda m: m.group(0).strip("`"), text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        result = set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = result
    return _anchors[path]


def check(path):
    errors = []
    rel = os.path.relpath(path, ROOT)
    for lineno, line in prose_lines(path):
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            file_part, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                errors.append(f"{rel}:{lineno}: error: link to missing file '{target}'")
                continue
            if fragment and dest.endswith(".md") and fragment not in anchors(dest):
                errors.append(
                    f"{rel}:{lineno}: error: no heading of {os.path.relpath(dest, ROOT)} "
                    f"has the anchor '#{fragment}'")
    return errors


def default_files():
    files = [os.path.join(ROOT, "README.md")]
    for top in ("docs", "python"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".md")]
    return files


def main(argv):
    files = [os.path.abspath(a) for a in argv[1:]] or default_files()
    errors = []
    for f in files:
        errors += check(f)
    for e in errors:
        print(e)
    print(f"{len(files)} files, {len(errors)} broken links")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
