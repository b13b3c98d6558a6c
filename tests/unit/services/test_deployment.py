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


def test_compose_publishes_neither_postgres_nor_redis_on_the_host():
    services = _compose()["services"]
    assert "ports" not in services["postgres"]
    assert "ports" not in services["redis"]


def test_compose_takes_the_token_key_and_database_passwords_from_the_env_file():
    services = _compose()["services"]
    secrets = {"QIPAI_TOKEN_SECRET", "POSTGRES_PASSWORD", "REDIS_PASSWORD"}
    for name in ("qipai", "qipai-game-2"):
        env = services[name]["environment"]
        assert env["QIPAI_TOKEN_SECRET"].startswith("${QIPAI_TOKEN_SECRET:?")
        assert "${POSTGRES_PASSWORD:?" in env["QIPAI_DATABASE_URL"]
        assert "${REDIS_PASSWORD:?" in env["QIPAI_REDIS_URL"]
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert any(part.startswith("${REDIS_PASSWORD:?") for part in services["redis"]["command"])
    example = dict(line.split("=", 1) for line in (ROOT / ".env.example").read_text().splitlines()
                   if line and not line.startswith("#"))
    assert set(example) == secrets
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_example_env_files_key_is_refused_beyond_loopback():
    from services.signing_key import exposure_problem

    example = dict(line.split("=", 1) for line in (ROOT / ".env.example").read_text().splitlines()
                   if line and not line.startswith("#"))
    assert exposure_problem("0.0.0.0:50051", example["QIPAI_TOKEN_SECRET"]) is not None
