"""YAML read with limits: size, nesting depth and alias expansion.

A "billion laughs" file (nested aliases) is a few hundred bytes that expands to
billions of nodes: `yaml.safe_load` hangs on it. So a file is first composed into its
node graph (aliases stay shared, cheap), the graph's expanded size and depth are
measured with memoisation, and only a graph within limits is turned into Python data.
A file over the size limit is refused before parsing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 4 * 1024 * 1024  # packs and suites are kilobytes; 4 MB is generous
MAX_NODES = 500_000  # after alias expansion
MAX_DEPTH = 64


class YamlLimitError(ValueError):
    """The document is too big, too deep or expands too much; the message says which."""


def check_size(path: Path, limit: int = MAX_BYTES) -> None:
    size = path.stat().st_size
    if size > limit:
        raise YamlLimitError(f"file is {size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit")


def _measure(root: yaml.Node) -> tuple[int, int]:
    """Expanded node count and depth of a node graph, each shared node measured once."""
    sizes: dict[int, tuple[int, int]] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        if isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            sizes[key] = (1, 1)
            continue
        if not children_done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        count = 1 + sum(sizes[id(c)][0] for c in children)
        depth = 1 + max((sizes[id(c)][1] for c in children), default=0)
        if count > MAX_NODES:
            raise YamlLimitError(f"expands to more than {MAX_NODES} nodes (alias bomb?)")
        if depth > MAX_DEPTH:
            raise YamlLimitError(f"nested deeper than {MAX_DEPTH} levels")
        sizes[key] = (count, depth)
    return sizes[id(root)]


def compose_limited(text: str) -> yaml.Node | None:
    """The node graph of `text`, refused when it is too deep or expands too far.

    Raises `yaml.MarkedYAMLError` for syntax errors (with a line), `YamlLimitError` else.
    """
    if len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise YamlLimitError(f"text is over the {MAX_BYTES / 1e6:.0f} MB limit")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise YamlLimitError(f"nested deeper than {MAX_DEPTH} levels") from None
    if node is not None:
        _measure(node)
    return node


def construct(node: yaml.Node | None) -> Any:
    """Python data from a node graph that passed the limits (safe types only)."""
    if node is None:
        return None
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_limited(text: str) -> Any:
    """`yaml.safe_load` with the limits above."""
    return construct(compose_limited(text))
