"""The apps depend one way (README "Packages"): the pure rules import no Django and nothing of
ours but the pure packages; each app imports only the apps to its left in
domain, matches/kort, matches/belote <- players <- matches <- stats <- ranking <- kort_site."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = ("domain", "matches.kort", "matches.belote")
APPS = ("players", "matches", "stats", "ranking", "kort_site")
"""From the bottom up: an app may import the pure packages and the apps before it."""
FRAMEWORKS = ("django", "rest_framework", "celery", "drf_spectacular")


def package_of(module: str) -> str | None:
    """The pure package or app a dotted module name belongs to (None: not ours)."""
    for name in (*PURE, *APPS):
        if module == name or module.startswith(f"{name}."):
            return name
    return None


def imports_of(path: Path) -> set[str]:
    """Every module imported anywhere in the file, top level or inside functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def source_files() -> list:
    return [
        pytest.param(path, id=str(path.relative_to(ROOT)))
        for top in ("domain", *APPS)
        for path in sorted((ROOT / top).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def allowed_for(package: str) -> set[str]:
    if package in PURE:
        return set(PURE)
    return {*PURE, *APPS[: APPS.index(package) + 1]}


@pytest.mark.parametrize("path", source_files())
def test_imports_run_one_way(path):
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    package = package_of(module)
    imported = imports_of(path)
    ours = {name: package_of(name) for name in imported if package_of(name)}
    upward = {name for name, target in ours.items() if target not in allowed_for(package)}
    assert not upward, f"{module} ({package}) imports {sorted(upward)}"
    if package in PURE:
        frameworks = {name for name in imported if name.split(".")[0] in FRAMEWORKS}
        assert not frameworks, f"{module} is pure rules but imports {sorted(frameworks)}"
