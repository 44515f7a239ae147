"""Nested containers of tensors as flat leaf lists: tuples, lists, dicts and namedtuples are
nodes, everything else a leaf. ember.func uses it for the pytree inputs and outputs its
transforms accept (parameter dicts, tuples of outputs)."""
from __future__ import annotations


class TreeSpec:
    """The shape of a tree: the node's type (None for a leaf), its keys and its children's specs."""

    __slots__ = ("kind", "keys", "children")

    def __init__(self, kind=None, keys=(), children=()):
        self.kind, self.keys, self.children = kind, tuple(keys), tuple(children)

    @property
    def is_leaf(self) -> bool:
        return self.kind is None

    @property
    def num_leaves(self) -> int:
        return 1 if self.is_leaf else sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.kind == other.kind and self.keys == other.keys
                and self.children == other.children)

    def __repr__(self) -> str:
        if self.is_leaf:
            return "*"
        inner = ", ".join(f"{k!r}: {c!r}" if self.kind is dict else repr(c) for k, c in zip(self.keys, self.children))
        return f"{self.kind.__name__}({inner})"


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def tree_flatten(tree, is_leaf=None):
    """(leaves, spec) of tree, leaves in order (dicts in insertion order)."""
    leaves = []

    def walk(x):
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return TreeSpec()
        if isinstance(x, dict):
            keys = list(x.keys())
            return TreeSpec(dict, keys, [walk(x[k]) for k in keys])
        if isinstance(x, (list, tuple)):
            kind = type(x) if _is_namedtuple(x) else (list if isinstance(x, list) else tuple)
            return TreeSpec(kind, range(len(x)), [walk(v) for v in x])
        leaves.append(x)
        return TreeSpec()
    return leaves, walk(tree)


def tree_unflatten(leaves, spec):
    """The tree of spec's shape holding leaves in order."""
    it = iter(leaves)

    def build(s):
        if s.is_leaf:
            return next(it)
        values = [build(c) for c in s.children]
        if s.kind is dict:
            return dict(zip(s.keys, values))
        if s.kind is list or s.kind is tuple:
            return s.kind(values)
        return s.kind(*values)
    return build(spec)


def tree_map(fn, tree):
    """tree with every leaf x replaced by fn(x)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec, what: str):
    """One value of prefix per leaf of the tree of spec: prefix is a leaf (an int or None,
    standing for its whole subtree) or a node matching spec's node at that place."""
    out = []

    def walk(p, s):
        if p is None or isinstance(p, int) or s.is_leaf:
            if not (p is None or isinstance(p, int)):
                raise ValueError(f"{what}: expected a structure compatible with {s!r} (an int or None for a leaf), "
                                 f"but got {p!r}")
            out.extend([p] * s.num_leaves)
            return
        p_leaves, p_spec = tree_flatten(p, is_leaf=lambda x: x is None or isinstance(x, int))
        del p_leaves
        kind = tuple if isinstance(p, tuple) and not _is_namedtuple(p) else type(p)
        if (p_spec.kind in (tuple, list) and s.kind in (tuple, list)) or p_spec.kind == s.kind:
            if len(p_spec.keys) == len(s.keys) and (s.kind is not dict or set(p.keys()) == set(s.keys)):
                items = [p[k] for k in s.keys] if s.kind is dict else list(p)
                for pc, sc in zip(items, s.children):
                    walk(pc, sc)
                return
        raise ValueError(f"{what}: expected a structure compatible with {s!r}, but got {kind.__name__} {p!r}")
    walk(prefix, spec)
    return out
