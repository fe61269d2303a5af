#!/usr/bin/env python3
"""For applying branch i23-core-io (recorded in main's history, not yet applied; remove this
script once it is). Issue 23 (branch i23-core-io): src/core split into core (model), util and io.
Rewrites #include "core/X.h" for the headers that moved, in src/ tests/ bench/ fuzz/.
Run from the repository root: python3 /tmp/i23_core_io_includes.py [DIR...]
(then, optionally, with --mentions [DIR...] for paths named in comments and Markdown).
Idempotent; prints the files it changed. core/distribution.h goes to io/distribution_reader.h
in files that call its YAML readers (parse_duration(Ctx), parse_*_dist) and in headers whose .cc
does, else to util/distribution.h."""
import os
import re
import sys

MOVED = {
    # utilities
    "core/stats.h": "util/stats.h",
    "core/paired_stats.h": "util/paired_stats.h",
    "core/inference.h": "util/inference.h",
    "core/sweep.h": "util/sweep.h",
    "core/suggest.h": "util/suggest.h",
    "core/distribution.h": "util/distribution.h",  # or io/distribution_reader.h, see below
    # input/output formats
    "core/yaml_util.h": "io/yaml_util.h",
    "core/json_items.h": "io/json_items.h",
    "core/json.h": "io/json.h",
    "core/files.h": "io/files.h",
    "core/limits.h": "io/limits.h",
    "core/k8s_objects.h": "io/k8s_objects.h",
    "core/k8s_api_objects.h": "io/k8s_api_objects.h",
    "core/k8s_names.h": "io/k8s_names.h",
    "core/pod_fields.h": "io/pod_fields.h",
}
DIST_READERS = re.compile(r"\bparse_(duration|duration_dist|number_dist|resource_dist)\s*\(")
INCLUDE = re.compile(r'^(\s*#\s*include\s+")([^"]+)(".*)$')


def rewrite(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    uses_readers = bool(DIST_READERS.search(text))
    sibling = path[:-2] + ".cc" if path.endswith(".h") else None
    if sibling and os.path.exists(sibling):  # a header whose .cc reads distributions
        with open(sibling, encoding="utf-8") as f:
            uses_readers = uses_readers or bool(DIST_READERS.search(f.read()))
    out = []
    changed = False
    for line in text.splitlines(keepends=True):
        m = INCLUDE.match(line.rstrip("\n"))
        if m and m.group(2) in MOVED:
            new = MOVED[m.group(2)]
            if m.group(2) == "core/distribution.h" and uses_readers and \
                    not path.endswith(("distribution_reader.h", "distribution_reader.cc")):
                new = "io/distribution_reader.h"
            line = m.group(1) + new + m.group(3) + ("\n" if line.endswith("\n") else "")
            changed = True
        out.append(line)
    if changed:
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(out))
        print(path)


MENTION = re.compile(r"\bcore/(" + "|".join(
    re.escape(k[len("core/"):-len(".h")]) for k in MOVED) + r")\b")


def rewrite_mentions(path):
    """--mentions: paths named in comments and Markdown (core/stats.h, core/k8s_objects.*)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new = MENTION.sub(lambda m: MOVED["core/" + m.group(1) + ".h"][:-len(".h")], text)
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
        print(path)


def main():
    args = sys.argv[1:]
    mentions = "--mentions" in args
    roots = [a for a in args if a != "--mentions"] or ["src", "tests", "bench", "fuzz"]
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = os.path.join(dirpath, name)
                if mentions and name.endswith((".h", ".cc", ".md")):
                    rewrite_mentions(path)
                elif not mentions and name.endswith((".h", ".cc", ".cpp", ".hpp")):
                    rewrite(path)


if __name__ == "__main__":
    main()
