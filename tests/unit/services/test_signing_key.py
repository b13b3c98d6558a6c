"""The token key: generated once and kept private, never a public or short one beyond loopback."""

import stat

import pytest

from services.signing_key import MIN_LENGTH, exposure_problem, is_loopback, signing_key


def test_without_a_configured_key_one_is_generated_once_and_kept_readable_by_its_owner_only(tmp_path):
    key_file = tmp_path / "var" / "token-secret"
    first = signing_key("", key_file)
    assert len(first) >= MIN_LENGTH
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert signing_key("", key_file) == first


def test_a_configured_key_wins_and_nothing_is_written(tmp_path):
    key_file = tmp_path / "token-secret"
    assert signing_key("k" * 40, key_file) == "k" * 40
    assert not key_file.exists()


@pytest.mark.parametrize("addr", ["127.0.0.1:50051", "localhost:1", "[::1]:50051", "127.0.0.2:9"])
def test_loopback_addresses_take_any_key(addr):
    assert is_loopback(addr)
    assert exposure_problem(addr, "dev-insecure-secret") is None


@pytest.mark.parametrize("addr", ["0.0.0.0:50051", "[::]:50051", "10.0.0.5:50051", "qipai:50051"])
@pytest.mark.parametrize("key, why", [("dev-insecure-secret", "published"),
                                      ("change-me-in-production", "published"),
                                      ("short-key", "shorter than 32")])
def test_beyond_loopback_a_published_or_short_key_is_refused_saying_why(addr, key, why):
    problem = exposure_problem(addr, key)
    assert problem is not None and why in problem and addr in problem and "\n" not in problem


def test_beyond_loopback_a_long_random_key_is_fine():
    assert exposure_problem("0.0.0.0:50051", "0123456789abcdef" * 4) is None
