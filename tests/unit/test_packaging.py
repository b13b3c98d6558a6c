"""What the wheel is built from stays in step: pyproject.toml's packages, the sources the image's
build stage copies, and those tests/e2e/test_installed.py builds from (no Docker engine needed)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.e2e.test_installed import SOURCES

ROOT = Path(__file__).resolve().parents[2]


def _packages() -> set[str]:
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    return {pattern.rstrip("*") for pattern in found["include"]}


def _copied_by_the_wheel_stage() -> set[str]:
    dockerfile = (ROOT / "infra" / "Dockerfile").read_text()
    stage = dockerfile.split("FROM ")[1]  # the first stage builds the wheel
    copied: set[str] = set()
    for line in stage.splitlines():
        if line.startswith("COPY "):
            copied.update(line.split()[1:-1])
    return copied


def test_the_image_builds_the_wheel_from_every_package_and_build_input():
    assert _packages() | {"pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "protos"} \
        <= _copied_by_the_wheel_stage()


def test_the_image_installs_the_wheel_not_the_source_tree():
    dockerfile = (ROOT / "infra" / "Dockerfile").read_text()
    final = dockerfile.split("FROM ")[-1]
    assert re.search(r"pip install [^\n]*/wheels/\*\.whl", final)
    assert not [line for line in final.splitlines()
                if line.startswith("COPY ") and set(line.split()[1:-1]) & _packages()]
    assert "PYTHONPATH" not in final


def test_the_installed_wheel_test_builds_from_every_package():
    assert _packages() <= set(SOURCES)


def test_every_migration_directory_ships_as_package_data():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for directory in sorted(ROOT.glob("services/*/*_migrations")):
        package = ".".join(directory.parent.relative_to(ROOT).parts)
        assert f"{directory.name}/*.sql" in package_data.get(package, []), directory
