#!/usr/bin/env python3
"""Checks that mbhash-core's top-level modules import each other without a
circle, and that the catalogue (`alg`) imports no other module.

An edge A -> B is any `crate::B` path (a `use`, a qualified name, a
`crate::{B, ...}` group) in the non-test code of module A, comments and
`#[cfg(test)] mod tests` blocks left out; doc links live in comments and do
not count. Prints the graph's layers, bottom first, and exits with 1 on a
circle (naming its modules and the edges between them) or on an import of
the catalogue.

    scripts/check-module-graph.py [mbhash-core/src]
"""

import os
import re
import sys


def top_module(root, path):
    rel = os.path.relpath(path, root)[: -len(".rs")].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    return rel[0] if rel and rel[0] not in ("lib",) else None


def imports(source):
    source = re.split(r"#\[cfg\(test\)\]\s*mod tests\b", source)[0]
    source = re.sub(r"//[^\n]*", "", source)
    found = set(re.findall(r"\bcrate::([a-z_0-9]+)", source))
    for group in re.findall(r"\bcrate::\{([^}]*)\}", source):
        found.update(re.findall(r"(?:^|,)\s*([a-z_0-9]+)", group))
    return found


def graph(root):
    edges = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".rs") or name == "tests.rs":
                continue
            path = os.path.join(dirpath, name)
            module = top_module(root, path)
            if module is None:
                continue
            with open(path, encoding="utf-8") as f:
                edges.setdefault(module, set()).update(imports(f.read()))
    modules = set(edges)
    return {m: {d for d in ds if d in modules and d != m} for m, ds in edges.items()}


def circles(g):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def layers(g):
    done, out = set(), []
    while len(done) < len(g):
        layer = sorted(m for m in g if m not in done and g[m] <= done)
        if not layer:
            break
        out.append(layer)
        done.update(layer)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "mbhash-core/src"
    g = graph(root)
    failed = False
    for comp in circles(g):
        failed = True
        print("circle: " + ", ".join(comp))
        for m in comp:
            print(f"  {m} -> {', '.join(sorted(g[m] & set(comp)))}")
    if g.get("alg"):
        failed = True
        print("the catalogue (alg) imports: " + ", ".join(sorted(g["alg"])))
    for i, layer in enumerate(layers(g)):
        print(f"layer {i}: {' '.join(layer)}")
    if failed:
        sys.exit(1)
    print("module graph: no circles; alg imports no module")


if __name__ == "__main__":
    main()
