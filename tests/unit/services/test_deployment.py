"""docker-compose.yml must stay in step with the code (no Docker engine needed to check it)."""

from pathlib import Path

import yaml

from services.config import SERVICES, Settings

ROOT = Path(__file__).resolve().parents[3]


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_postgres_redis_and_qipai_each_with_a_healthcheck():
    services = _compose()["services"]
    assert {"postgres", "redis", "qipai"} <= set(services)
    for name in ("postgres", "redis", "qipai"):
        assert "healthcheck" in services[name], name


def test_compose_sets_every_variable_the_configuration_reads():
    expected = {f"QIPAI_{name.upper()}" for name in Settings.model_fields}
    env = set(_compose()["services"]["qipai"]["environment"])
    assert expected == env


def test_compose_serves_every_service():
    command = _compose()["services"]["qipai"]["command"]
    assert command[:3] == ["serve", "--service", "all"]
    assert set(SERVICES) == {"game", "matchmaking", "ledger"}


def test_readme_lists_every_variable_the_configuration_reads():
    readme = (ROOT / "README.md").read_text()
    for name in Settings.model_fields:
        assert f"QIPAI_{name.upper()}" in readme, name


def test_compose_runs_two_game_nodes_that_share_the_database_and_redis():
    services = _compose()["services"]
    first, second = services["qipai"]["environment"], services["qipai-game-2"]["environment"]
    assert services["qipai-game-2"]["command"] == ["serve", "--service", "game"]
    assert first["QIPAI_DATABASE_URL"] == second["QIPAI_DATABASE_URL"]
    assert first["QIPAI_REDIS_URL"] == second["QIPAI_REDIS_URL"]
    assert first["QIPAI_NODE_ID"] != second["QIPAI_NODE_ID"]
    assert set(first) == set(second)
