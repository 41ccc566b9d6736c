"""The import rules of docs/architecture.md, checked on the source: no import cycle between the
project's apps or modules, apps import only the apps below them, no app reads a higher app's
rows through the ORM relations that reach down to its own models (which no import shows), the
pure rules import no framework, services and selectors speak no HTTP and the pages no DRF; and
the ladder has one writer."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent

ALLOWED = {
    "domain": set(),
    "delivery": set(),
    "bulk": set(),
    "idempotency": set(),
    "pagination": {"domain"},
    "players": {"domain", "bulk"},
    "seasons": {"domain", "bulk"},
    "matches": {"domain", "bulk", "delivery", "pagination", "players", "seasons"},
    "belote": {"domain", "players"},
    "stats": {"domain", "bulk", "matches", "players", "seasons"},
    "ranking": {
        "domain",
        "bulk",
        "delivery",
        "matches",
        "pagination",
        "players",
        "stats",
        "seasons",
    },
    "pages": {"domain", "matches", "players", "stats", "ranking", "belote", "seasons"},
    "kort_site": {
        "domain",
        "bulk",
        "delivery",
        "idempotency",
        "matches",
        "pagination",
        "players",
        "stats",
        "ranking",
        "belote",
        "pages",
        "seasons",
    },
}
"""Each top-level package of the project and the packages it may import (docs/architecture.md)."""

PURE = (
    "domain",
    "matches.kort",
    "belote.scoring",
    "matches.reports",
    "matches.records",
    "players.usernames",
    "ranking.fold",
)
"""The pure rules: no Django, no DRF, no Celery, and nothing of ours but other pure modules."""

FRAMEWORKS = ("django", "rest_framework", "drf_spectacular", "celery", "rest_framework_api_key")
HTTP = ("rest_framework", "drf_spectacular")
DRF = ("rest_framework", "drf_spectacular", "rest_framework_api_key")


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages (migrations excluded), by dotted name."""
    modules = {}
    for package in ALLOWED:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_names(path: Path, module: str) -> Iterator[str]:
    """The dotted names ``module`` imports, anywhere in the file (inside functions too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a package's ``__init__`` only when named)."""
    graph = {}
    for module, path in modules.items():
        targets = {name for name in imported_names(path, module) if name in modules}
        graph[module] = targets - {module}
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The cycles of ``graph``: one path per strongly connected part of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def top(module: str) -> str:
    return module.split(".")[0]


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(f"{p}.") for p in prefixes)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(project_modules())


def test_no_module_imports_another_in_a_cycle(graph):
    assert cycles(graph) == []


def test_no_app_imports_another_in_a_cycle(graph):
    apps = {
        app: {top(t) for m, ts in graph.items() if top(m) == app for t in ts} for app in ALLOWED
    }
    assert cycles({app: targets - {app} for app, targets in apps.items()}) == []


def test_each_app_imports_only_the_apps_below_it(graph):
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if top(target) != top(module) and top(target) not in ALLOWED[top(module)]
    )
    assert wrong == []


def test_the_pure_rules_import_no_framework_and_nothing_impure():
    modules = project_modules()
    wrong = sorted(
        f"{module} -> {name}"
        for module, path in modules.items()
        if within(module, PURE)
        for name in imported_names(path, module)
        if within(name, FRAMEWORKS) or (name in modules and not within(name, PURE))
    )
    assert wrong == []


def test_services_and_selectors_speak_no_http():
    modules = project_modules()
    wrong = sorted(
        f"{module} -> {name}"
        for module, path in modules.items()
        if module.rpartition(".")[2] in ("services", "selectors")
        for name in imported_names(path, module)
        if within(name, HTTP)
    )
    assert wrong == []


def test_the_pages_import_no_drf():
    """The pages render the selectors' plain values themselves (API.md "Players' pages"): no
    DRF request, pagination or serializer."""
    modules = project_modules()
    wrong = sorted(
        f"{module} -> {name}"
        for module, path in modules.items()
        if top(module) == "pages"
        for name in imported_names(path, module)
        if within(name, DRF)
    )
    assert wrong == []


def downward_relations() -> dict[str, dict[str, str]]:
    """For each app, the names by which its code could reach a higher app's rows through the
    ORM: ``{lower app: {name: "higher.Model.field"}}``, the reverse accessor (``cup_changes``,
    ``cupchange_set``) and the query name (``cup_changes__delta``) of each relation of a
    higher app's model to one of the lower app's, from Django's app registry."""
    from django.apps import apps

    found: dict[str, dict[str, str]] = {}
    for model in apps.get_models():
        higher = model._meta.app_label
        relation: Any  # a relation field: a foreign key, one-to-one or many-to-many
        for relation in model._meta.get_fields():
            target = relation.related_model
            if not relation.is_relation or relation.auto_created or target is None:
                continue
            lower = target._meta.app_label
            if lower == higher or lower not in ALLOWED or higher in ALLOWED[lower]:
                continue
            remote = relation.remote_field
            where = f"{model._meta.label}.{relation.name}"
            for name in (remote.get_accessor_name(), relation.related_query_name()):
                found.setdefault(lower, {})[name] = where
    return found


def relation_uses(path: Path, names: Mapping[str, str]) -> Iterator[tuple[int, str]]:
    """``(line, name)`` for each use in the file of one of ``names`` as the ORM takes it: an
    attribute (``match.cup_changes``), a string (``prefetch_related("cup_changes")``,
    ``values("cup_changes__delta")``) or a keyword (``filter(cup_changes__kind=...)``)."""

    def named(text: str) -> str | None:
        first = text.split("__")[0]
        return first if first in names else None

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute):
            name = named(node.attr) if "__" not in node.attr else None
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = named(node.value)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            name = named(node.arg)
        else:
            continue
        if name is not None:
            yield getattr(node, "lineno", 0), name


def test_no_app_reads_a_higher_apps_rows_through_an_orm_relation():
    """A relation of a higher app's model to a lower app's gives the lower app's models names
    (``Match.cup_changes``) that reach the higher app's rows without an import: the lower app
    must ask the higher one (a selector named by it) instead, as it queues its tasks."""
    relations = downward_relations()
    assert relations["matches"]["cup_changes"] == "ranking.CupChange.match"
    wrong = sorted(
        f"{module}:{line} {name} ({relations[top(module)][name]})"
        for module, path in project_modules().items()
        if top(module) in relations
        for line, name in relation_uses(path, relations[top(module)])
    )
    assert wrong == []


LADDER_MODELS = {
    "CupChange",
    "PlayerStats",
    "SeasonStats",
    "ModeStats",
    "PairFigures",
    "StreakFigures",
    "EndedRun",
    "BoardCount",
    "BoardTotal",
}
"""The ladder's rows besides the players' totals: the ledger, the statistics, the §12 figures
and the board."""
LADDER_WRITES = {
    "stats_add",
    "mode_stats_add",
    "season_stats_open",
    "season_cups_record",
    "pairs_follow",
    "streaks_follow",
    "stats_replace",
    "board_moves",
    "board_move",
    "board_build",
    "board_claim",
    "board_retire",
}
"""The functions that write (or return the statements that write) the ladder's rows."""
WRITER = "ranking.ladder"
STATEMENTS = {"ranking.board": "the board's counts", "stats.services": "the statistics' rows"}
"""Modules that build the ladder's statements for :data:`WRITER`, and what they write."""
ORM_WRITES = {"update", "create", "delete", "bulk_create", "bulk_update", "update_or_create"}
PLAYER_TOTALS = {"cups", "best_cups", "cups_changed_at", "board_season", "reset_season"}


def ladder_writes(path: Path) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each write of the ladder's rows in the file: a call of one of
    :data:`LADDER_WRITES`, a statement (``Insert``, ``Update``, ``Delete``) or an ORM write
    (``objects....update(...)``) of one of :data:`LADDER_MODELS` or of the players' totals (a
    ``bulk_update`` of players, whatever its fields), an assignment to a player's total
    (``player.cups = ...``)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr in PLAYER_TOTALS:
                    yield node.lineno, f"assigns .{target.attr}"
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in LADDER_WRITES:
            yield node.lineno, f"calls {name}"
        elif name in ("Insert", "Update", "Delete") and node.args:
            model = node.args[0]
            if isinstance(model, ast.Name) and model.id in {*LADDER_MODELS, "Player"}:
                yield node.lineno, f"{name}({model.id})"
        elif name in ORM_WRITES and isinstance(func, ast.Attribute):
            root = func.value
            while isinstance(root, ast.Attribute | ast.Call):
                root = root.func if isinstance(root, ast.Call) else root.value
            keys = {keyword.arg for keyword in node.keywords if keyword.arg is not None}
            if isinstance(root, ast.Name) and root.id in LADDER_MODELS:
                yield node.lineno, f"{root.id}.objects...{name}"
            elif isinstance(root, ast.Name) and root.id == "Player" and keys & PLAYER_TOTALS:
                yield node.lineno, f"Player.objects...{name}({', '.join(sorted(keys))})"
            elif isinstance(root, ast.Name) and root.id == "Player" and name == "bulk_update":
                yield node.lineno, "Player.objects...bulk_update"


def test_the_ladder_has_one_writer():
    """Nothing but ``ranking.ladder`` writes the ledger, the players' totals, the statistics,
    the §12 figures or the board (KORT_RULES §7, §8, §10, §12): the modules that build those
    statements for it write nothing themselves but through it."""
    wrong = sorted(
        f"{module}:{line} {what}"
        for module, path in project_modules().items()
        if module != WRITER and module not in STATEMENTS
        for line, what in ladder_writes(path)
    )
    assert wrong == []


def test_the_writer_check_finds_each_kind_of_write(tmp_path):
    source = tmp_path / "writes.py"
    source.write_text(
        "stats_add(lines, season=1, ranked=True)\n"
        "run([Insert(CupChange, rows)])\n"
        "BoardCount.objects.filter(season=1).delete()\n"
        "Player.objects.filter(pk=1).update(cups=3)\n"
        "Player.objects.filter(pk=1).update(display_name='x')\n"
        "player.best_cups = 4\n"
        "Player.objects.bulk_update(players, names)\n"
    )
    assert sorted(line for line, _ in ladder_writes(source)) == [1, 2, 3, 4, 6, 7]


def test_the_checker_finds_a_cycle_and_reads_relative_and_nested_imports(tmp_path):
    """The checks above would pass on an empty graph: this one proves the reader and the cycle
    finder see what they are meant to see."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    source = tmp_path / "services.py"
    source.write_text("from . import models\n\ndef f():\n    from rest_framework import status\n")
    names = set(imported_names(source, "matches.services"))
    assert {"matches.models", "rest_framework"} <= names


def test_the_checker_finds_the_uses_of_a_relation(tmp_path):
    source = tmp_path / "selectors.py"
    source.write_text(
        "def f(match, matches):\n"
        "    match.cup_changes.all()\n"
        '    matches.prefetch_related("cup_changes")\n'
        "    matches.filter(cup_changes__kind='void')\n"
        '    matches.values("cup_changes__delta", "cups")\n'
        "    return match.cups\n"
    )
    uses = sorted(relation_uses(source, {"cup_changes": "ranking.CupChange.match"}))
    assert uses == [(2, "cup_changes"), (3, "cup_changes"), (4, "cup_changes"), (5, "cup_changes")]
