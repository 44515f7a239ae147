"""The shape of the Python package: no import cycles between ember's modules, and
ember.nn.functional exporting every name of the family modules it is split into. (That no
file is over its line limit, python/ember's included, is test_source_sizes.py's check.)

Note [Import cycles]
The graph has one node per module of python/ember (a package is its __init__.py) and an
edge A -> B when importing A runs an import of B:

- Only statements that run while A is imported count: A's top level and, within it, the
  bodies of if/else, try, with, for and while statements and class bodies. An import inside
  a function runs when the function is called, normally once the package has finished
  importing, and is no edge.
- `import P.Q.M` has edges to M and to each package on the way (P, P.Q), since Python runs
  their __init__ first. `from P.Q import x` has edges to P and P.Q, and to P.Q.x when x is a
  module. Relative imports are resolved against A's package first.
- Edges to modules outside ember, and to the compiled ember._C, are left out.
- Edges from A to its own enclosing packages are left out: Python starts a package's
  __init__ before any module inside it, so by the time A runs, `import ember` or
  `from ember.nn import Module` re-enters nothing and only reads what the package bound
  before it imported A (an order mistake there fails every `import ember` at once). The
  package's own edges down to its children stay.

A cycle is a closed path in this graph: two modules that each need the other while being
imported, so which one works depends on which is imported first and on names being read
late. The fix is to move what both need into a module below them both.
"""
import ast
import importlib
import pkgutil
from collections import deque
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "python" / "ember"


def module_files(package_dir, package_name):
    """{dotted module name: path} of every .py file under package_dir."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join([package_name, *parts])] = path
    return modules


def _import_time_statements(body):
    """The import statements among body that run when the module is imported (Note [Import
    cycles]): descending into compound statements and class bodies, never into functions."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list):
                    yield from _import_time_statements(inner)


def _with_packages(name):
    """name and each package above it: a.b.c -> [a, a.b, a.b.c]."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _imported_names(module, path, statement, modules):
    """The modules of the tree that one import statement imports."""
    if isinstance(statement, ast.Import):
        targets = []
        for alias in statement.names:
            targets += _with_packages(alias.name)
        return targets
    if statement.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        base = package.split(".")
        if statement.level > 1:
            base = base[:-(statement.level - 1)]
        source = ".".join(base + ([statement.module] if statement.module else []))
    else:
        source = statement.module
    targets = _with_packages(source)
    for alias in statement.names:
        if f"{source}.{alias.name}" in modules:
            targets.append(f"{source}.{alias.name}")
    return targets


def import_graph(package_dir, package_name):
    """{module: set of modules it imports while being imported}, by Note [Import cycles]."""
    modules = module_files(package_dir, package_name)
    graph = {}
    for module, path in modules.items():
        enclosing = set(_with_packages(module)[:-1])
        tree = ast.parse(path.read_text(), filename=str(path))
        edges = set()
        for statement in _import_time_statements(tree.body):
            for target in _imported_names(module, path, statement, modules):
                if target in modules and target != module and target not in enclosing:
                    edges.add(target)
        graph[module] = edges
    return graph


def _strongly_connected(graph):
    """Tarjan's strongly connected components of graph, each as a sorted list."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _shortest_cycle(graph, start, members):
    """A shortest path start -> ... -> start within members (breadth first)."""
    parent = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for succ in sorted(graph[node]):
            if succ == start:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1] + [start]
            if succ in members and succ not in parent:
                parent[succ] = node
                queue.append(succ)
    raise AssertionError(f"{start} is on no cycle")


def import_cycles(package_dir, package_name):
    """One cycle, as the list of its modules from the first back to it, per group of modules
    that import each other (Note [Import cycles])."""
    graph = import_graph(package_dir, package_name)
    cycles = []
    for component in _strongly_connected(graph):
        if len(component) > 1:
            cycles.append(_shortest_cycle(graph, component[0], set(component)))
    return cycles


def test_ember_has_no_import_cycles():
    cycles = import_cycles(PACKAGE_DIR, "ember")
    assert not cycles, "import cycles in python/ember (Note [Import cycles]; move what both sides need into " \
        "a module below them):\n" + "\n".join("  " + " -> ".join(cycle) for cycle in cycles)


def _write_package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_import_cycles_finds_a_cycle_and_only_real_ones(tmp_path):
    _write_package(tmp_path / "pkg", {
        "__init__.py": "from pkg import a\nfrom pkg.sub import c\n",
        # a and b import each other, b through a relative import of its package.
        "a.py": "import pkg\nfrom pkg import b\n",
        "b.py": "from . import a\n",
        # c imports its own packages and imports d only when called: no cycle.
        "sub/__init__.py": "from pkg.sub import c\n",
        "sub/c.py": "import pkg\nfrom .. import sub\n\ndef f():\n    from pkg.sub import d\n",
        # d imports c under an if: an edge, but c does not import d back.
        "sub/d.py": "if True:\n    from pkg.sub.c import f\n",
    })
    graph = import_graph(tmp_path / "pkg", "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.sub.c"] == set()
    assert graph["pkg.sub.d"] == {"pkg.sub.c"}
    assert import_cycles(tmp_path / "pkg", "pkg") == [["pkg.a", "pkg.b", "pkg.a"]]


def test_import_cycles_finds_a_longer_cycle_through_a_package(tmp_path):
    _write_package(tmp_path / "pkg", {
        "__init__.py": "",
        "a.py": "from pkg.other import thing\n",
        # Importing pkg.other runs its __init__, which imports b, which imports a.
        "other/__init__.py": "from pkg.other.b import thing\n",
        "other/b.py": "try:\n    import pkg.a\nexcept ImportError:\n    pass\nthing = 1\n",
    })
    assert import_cycles(tmp_path / "pkg", "pkg") == [["pkg.a", "pkg.other", "pkg.other.b", "pkg.a"]]


def _family_modules():
    import ember.nn
    return [importlib.import_module(f"ember.nn.{info.name}") for info in pkgutil.iter_modules(ember.nn.__path__)
            if info.name.startswith("_functional_")]


def _public_definitions(module):
    """The names a module's top level defines (def, class, assignment) without a leading _."""
    names = set()
    for node in ast.parse(Path(module.__file__).read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    names.add(target.id)
    return {name for name in names if not name.startswith("_")}


def test_functional_family_modules_list_what_they_define():
    families = _family_modules()
    assert len(families) > 1
    for module in families:
        assert sorted(module.__all__) == sorted(_public_definitions(module)), module.__name__


def test_functional_exports_every_family_name():
    import ember
    from ember.nn import functional as F
    exported = set(F.__all__)
    assert exported == {name for name in dir(F) if not name.startswith("_")}
    for module in _family_modules():
        for name in module.__all__:
            assert name in exported, f"ember.nn.functional lacks {module.__name__}.{name}"
            assert getattr(F, name) is getattr(module, name), name
    wrapped = set().union(*(module.__all__ for module in _family_modules()))
    for name in dir(ember._C._nn):
        if not name.startswith("_"):
            assert name in exported, f"ember.nn.functional lacks the generated {name}"
            if name not in wrapped:
                assert getattr(F, name) is getattr(ember._C._nn, name), name
    namespace = {}
    exec("from ember.nn.functional import *", namespace)
    assert exported == set(namespace) - {"__builtins__"}


@pytest.mark.parametrize("name", ["relu", "cross_entropy", "conv2d", "max_pool2d", "layer_norm", "pad",
                                  "scaled_dot_product_attention", "grid_sample", "ctc_loss", "embedding"])
def test_functional_wrappers_name_the_public_module(name):
    from ember.nn import functional as F
    assert getattr(F, name).__module__ == "ember.nn.functional"
