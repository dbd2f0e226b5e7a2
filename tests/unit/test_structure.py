"""The shape of core/ is enforced here, so it cannot drift back into a flat folder.

Read from the source with `ast` (no imports run): layers import downwards only, no import
cycles (function-level imports count), no module reaches into another's underscore names,
no function in core/ over 100 lines, pages talk to the service and the UI helpers only.
docs/ARCHITECTURE.md explains the layers this file checks.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
MAX_FUNCTION_LINES = 100

# Lower number = lower layer. A module may import its own layer's package and anything
# below; the three middle packages are siblings and may not import one another.
LAYERS = {
    "core.config": 0, "core.errors": 0, "core.types": 0, "core.jsonl": 0,
    "core.request_log": 0, "core.embeddings": 0, "core.taxonomy": 0, "core.gaps": 0,
    "core.progress": 0, "core.zh_script": 0, "core.numerals": 0, "core.words": 0, "core.term_values": 0,
    "core.playbook": 0,
    "core.graph": 1,
    "core.ingest": 2, "core.guard": 2,
    "core.retrieval": 3,
    "core.answer": 4,
    "core.text2cypher": 5,
    "core.service": 6,
    "core.evaluation": 7,
    "core.ui": 8, "core.cli": 8,
    "core.__main__": 9, "core": 9,
}


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: list[tuple[str, int]] = field(default_factory=list)  # (module, line)
    private_uses: list[str] = field(default_factory=list)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _load_modules() -> dict[str, Module]:
    mods = {}
    for path in sorted(CORE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        name = module_name(path)
        mods[name] = Module(name, path, tree)
    for mod in mods.values():
        _collect_imports(mod, mods)
    return mods


def _resolve_relative(mod: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.name.split(".")
    if mod.path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _collect_imports(mod: Module, mods: dict[str, Module]) -> None:
    aliases: dict[str, str] = {}  # local name -> core module it refers to
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("core"):
                    mod.imports.append((a.name, node.lineno))
                    if a.asname:
                        aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            target = _resolve_relative(mod, node)
            if not target.startswith("core"):
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in mods:  # `from core.graph import db` imports the submodule
                    mod.imports.append((sub, node.lineno))
                    aliases[a.asname or a.name] = sub
                else:
                    mod.imports.append((target, node.lineno))
                    if a.name.startswith("_") and not a.name.startswith("__") and target != mod.name:
                        mod.private_uses.append(f"line {node.lineno}: from {target} import {a.name}")
    for node in ast.walk(mod.tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and node.attr.startswith("_")
                and not node.attr.startswith("__") and aliases[node.value.id] != mod.name):
            mod.private_uses.append(f"line {node.lineno}: {aliases[node.value.id]}.{node.attr}")


def _layer_key(name: str) -> str | None:
    best = None
    for key in LAYERS:
        if (name == key or name.startswith(key + ".")) and (best is None or len(key) > len(best)):
            best = key
    return best


MODULES = _load_modules()


def test_core_has_sub_packages_that_show_the_pipeline():
    packages = {p.parent.name for p in CORE.glob("*/__init__.py")}
    assert {"graph", "ingest", "retrieval", "guard", "answer", "text2cypher", "service"} <= packages
    flat = sorted(p.stem for p in CORE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    # Only the base layer lives at the top of core/.
    assert all(f"core.{name}" in LAYERS for name in flat), flat


def test_every_core_module_belongs_to_a_layer():
    orphans = [name for name in MODULES if _layer_key(name) is None]
    assert not orphans, f"modules outside any layer (add them to LAYERS and ARCHITECTURE.md): {orphans}"


def test_imports_flow_downwards():
    violations = []
    for mod in MODULES.values():
        own = _layer_key(mod.name)
        for target, line in mod.imports:
            other = _layer_key(target)
            if other is None or other == own or other == "core":
                continue
            if LAYERS[other] > LAYERS[own] or (LAYERS[other] == LAYERS[own] and LAYERS[own] != 0):
                violations.append(f"{mod.path.relative_to(ROOT)}:{line} imports {target} ({other} is not below {own})")
    assert not violations, "\n".join(violations)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on_stack, out, counter = {}, {}, [], set(), [], [0]

    def strongconnect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strongconnect(w)
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

    for v in graph:
        if v not in index:
            strongconnect(v)
    return out


def test_no_import_cycles():
    graph = {name: {t for t, _ in mod.imports if t in MODULES and t != name} for name, mod in MODULES.items()}
    assert _cycles(graph) == []


def test_cycle_detector_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_uses_another_modules_private_names():
    uses = [f"{m.path.relative_to(ROOT)} {u}" for m in MODULES.values() for u in m.private_uses]
    assert not uses, "\n".join(uses)


def test_private_name_detector_sees_attribute_and_from_imports(tmp_path):
    tree = ast.parse("from core.graph import db\nfrom core.types import _hidden\nx = db._private\n")
    mod = Module("core.service.x", tmp_path / "x.py", tree)
    _collect_imports(mod, {"core.graph.db": None, "core.service.x": None})
    assert len(mod.private_uses) == 2


def test_no_function_in_core_is_over_100_lines():
    long = []
    for mod in MODULES.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{mod.path.relative_to(ROOT)}:{node.lineno} {node.name} ({length} lines)")
    assert not long, "\n".join(long)


@pytest.mark.parametrize("page", sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"], ids=lambda p: p.name)
def test_pages_call_the_service_and_ui_helpers_only(page):
    allowed = ("core.service", "core.ui", "core.types")
    tree = ast.parse(page.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core"):
            mod = node.module
            names = [f"{mod}.{a.name}" if mod == "core" else mod for a in node.names]
            bad += [n for n in names if not n.startswith(allowed)]
        elif isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.startswith("core") and not a.name.startswith(allowed)]
    assert not bad, f"{page.name} imports {bad}; pages go through core.service"


def test_all_cypher_lives_in_graph_queries():
    """Cypher keywords at the start of a string literal outside core/graph/queries/ mean a query
    leaked out of the one place that holds them."""
    starts = ("MATCH ", "MATCH(", "MERGE ", "CREATE ", "CALL {", "OPTIONAL MATCH ", "UNWIND ")
    leaks = []
    for mod in MODULES.values():
        if mod.name.startswith(("core.graph.queries", "core.guard", "core.text2cypher.prompts",
                                "core.text2cypher.examples")):
            continue
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lstrip().startswith(starts):
                leaks.append(f"{mod.path.relative_to(ROOT)}:{node.lineno}")
    assert not leaks, "\n".join(leaks)
