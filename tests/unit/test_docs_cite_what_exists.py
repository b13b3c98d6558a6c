"""The docs and the code's own docstrings and comments cite only what exists: every repository
path (`services/game/tables.py`, `docs/rules/`, a glob such as `tests/e2e/test_*.py`), every
markdown file (`docs/design.md`, a bare `daqi.md`, a link relative to the doc) and every dotted
name of our packages (`engine.core.memo`, `services.config.Settings.queues_file`).

Names are resolved by reading the sources (ast), not by importing them: the check stays fast
and sees a module's top-level definitions and a class's members."""

from __future__ import annotations

import ast
import functools
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "services", "clients", "protocol", "cli")
CODE = (*PACKAGES, "tests", "bench", "web/serve.py", "setup.py")
TOP = ("engine", "services", "clients", "protocol", "cli", "tests", "bench", "docs", "infra",
       "config", "protos", "web", ".ci")
# Made by make, the build or a run, never committed: citing them is right though they may be absent.
GENERATED = ("gen/", "var/", "bench/results", "web/gen", "web/dist", "web/node_modules",
             "web/test-results", "build/", "infra/k8s/overlays/local/token.env")

_TOP = "|".join(re.escape(t) for t in TOP)
_PATH = re.compile(rf"(?<![\w./$-])((?:{_TOP})/[\w.*/-]*)")
_MARKDOWN_FILE = re.compile(r"(?<![\w/.-])([\w./-]*[\w-]\.md)\b")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
_DOTTED = re.compile(rf"(?<![\w./])((?:{'|'.join(PACKAGES)})(?:\.[A-Za-z_]\w*)+)")


def _docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
            *sorted((ROOT / "infra").rglob("README.md"))]


def _code() -> list[Path]:
    found: list[Path] = []
    for name in CODE:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [p for p in found if p != Path(__file__).resolve()]  # this file cites drift on purpose


def _prose(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of a Python file's comments and string literals (docstrings among them)."""
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING):
                yield tok.start[0], tok.string


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    if path.suffix == ".py":
        yield from _prose(path)
    else:
        yield from enumerate(path.read_text().splitlines(), start=1)


@functools.cache
def _markdown_names() -> frozenset[str]:
    return frozenset(p.name for p in ROOT.rglob("*.md") if "node_modules" not in p.parts)


def _path_exists(cited: str) -> bool:
    cited = cited.split("::")[0].rstrip(".,:;")
    if cited.startswith(GENERATED) or not cited:
        return True
    if any(c in cited for c in "*?["):
        return any(ROOT.glob(cited))
    return (ROOT / cited).exists()


@functools.cache
def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return base if base.is_dir() else None  # a namespace package


@functools.cache
def _names(path: Path) -> dict[str, ast.AST]:
    """The top-level names a module defines or imports, each with its definition."""
    tree = ast.parse(path.read_text())
    return _defined(tree.body)


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.If | ast.Try):
            names.update(_defined(node.body))
    return names


def _name_exists(dotted: str) -> bool:
    """A module of ours, or a name defined in one (a class's member too)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_file(".".join(parts[:cut]))
        if module is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        if module.is_dir():
            return False  # no module of that name in the package
        scope = _names(module)
        for i, name in enumerate(rest):
            if name.startswith("__"):
                return True  # what every module and class has (`__file__`, `__init__`)
            node = scope.get(name)
            if node is None:
                return False
            if isinstance(node, ast.Import | ast.ImportFrom) or i == len(rest) - 1:
                return True  # what an import brings in is checked where it is defined
            if not isinstance(node, ast.ClassDef):
                return True  # an attribute of a value: beyond what reading the source can tell
            scope = _defined(node.body) | {
                t.attr: t for f in node.body if isinstance(f, ast.FunctionDef)
                for t in ast.walk(f) if isinstance(t, ast.Attribute)}
        return True
    return False


def _citations(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, kind, cited) for every citation in one file."""
    for number, text in _lines(path):
        for match in _PATH.finditer(text):
            yield number, "path", match.group(1)
        for match in _DOTTED.finditer(text):
            yield number, "name", match.group(1)
        for match in _MARKDOWN_FILE.finditer(text):
            yield number, "markdown", match.group(1)
        if path.suffix == ".md":
            for match in _LINK.finditer(text):
                yield number, "link", match.group(1)


def _broken(path: Path) -> Iterator[str]:
    for number, kind, cited in _citations(path):
        where = f"{path.relative_to(ROOT)}:{number}: {cited}"
        if kind == "path" and not _path_exists(cited):
            yield f"{where} (no such path)"
        elif kind == "name" and not _name_exists(cited.rstrip(".")):
            yield f"{where} (no such module or name)"
        elif kind == "markdown" and not _markdown_exists(path, cited):
            yield f"{where} (no such document)"
        elif kind == "link" and "://" not in cited and not cited.startswith("mailto:") \
                and not (path.parent / cited).exists():
            yield f"{where} (broken link)"


def _markdown_exists(citing: Path, cited: str) -> bool:
    """A markdown file cited by a path (from the repository's root, docs/ or the citing file's
    folder) or, bare, by a name that one of the repository's documents has."""
    if "/" not in cited:
        return cited in _markdown_names()
    return any((base / cited).exists() for base in (ROOT, ROOT / "docs", citing.parent))


def test_the_docs_cite_only_paths_files_and_names_that_exist():
    broken = [b for doc in _docs() for b in _broken(doc)]
    assert not broken, "the docs cite what does not exist:\n" + "\n".join(broken)


def test_docstrings_and_comments_cite_only_paths_files_and_names_that_exist():
    broken = [b for source in _code() for b in _broken(source)]
    assert not broken, "the code's prose cites what does not exist:\n" + "\n".join(broken)


def test_the_check_sees_drift():
    """The check itself: it finds what a doc would get wrong after a rename or a move."""
    assert _path_exists("services/eventstore/migrations.py")
    assert not _path_exists("infra/postgres/0001_events.sql")
    assert _path_exists("tests/e2e/test_*.py") and not _path_exists("tests/e2e/test_nothing_*.py")
    assert _name_exists("engine.core.memo") and _name_exists("services.config.Settings.queues_file")
    assert not _name_exists("engine.core.no_such_module") and not _name_exists("services.config.NoSuchName")
    assert not _markdown_exists(ROOT / "services" / "errors.py", "DESIGN.md")
    assert _markdown_exists(ROOT / "docs" / "design.md", "rules/daqi.md")
