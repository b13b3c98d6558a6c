"""Tokens: signed, expiring, and checked once per token rather than once per call."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from services import auth


def test_a_token_names_its_player_and_role():
    token, _ = auth.issue("s3cret", "p1", auth.ADMIN, "Ann")
    assert auth.verify("s3cret", token) == auth.Identity("p1", auth.ADMIN, "Ann")


def test_a_token_signed_with_another_secret_is_refused():
    token, _ = auth.issue("other", "p1")
    with pytest.raises(auth.InvalidToken, match="signature"):
        auth.AuthInterceptor("s3cret").identify(token)


def test_a_remembered_token_is_still_refused_once_it_expires(monkeypatch):
    interceptor = auth.AuthInterceptor("s3cret")
    token, exp = auth.issue("s3cret", "p1", ttl_s=60)
    assert interceptor.identify(token).player_id == "p1"
    monkeypatch.setattr(time, "time", lambda: exp + 1)
    with pytest.raises(auth.InvalidToken, match="expired"):
        interceptor.identify(token)


def test_the_token_memory_is_bounded(monkeypatch):
    interceptor = auth.AuthInterceptor("s3cret")
    monkeypatch.setattr(auth.AuthInterceptor, "CACHE_SIZE", 3)
    for n in range(10):
        interceptor.identify(auth.issue("s3cret", f"p{n}")[0])
    assert len(interceptor._known) == 3


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _signed(secret: str, claims_json: str) -> str:
    claims = _b64(claims_json.encode())
    return f"{claims}.{_b64(hmac.new(secret.encode(), claims.encode(), hashlib.sha256).digest())}"


def test_a_token_whose_expiry_overflows_is_malformed_not_a_crash():
    token = _signed("s3cret", '{"sub":"p1","role":"player","exp":1e400}')
    with pytest.raises(auth.InvalidToken, match="malformed token claims"):
        auth.verify("s3cret", token)


@pytest.mark.parametrize("sub", ['["p1"]', '{"id":"p1"}', "42", '""', "null"])
def test_a_token_whose_subject_is_not_a_player_id_is_refused(sub):
    token = _signed("s3cret", f'{{"sub":{sub},"role":"player","exp":9999999999}}')
    with pytest.raises(auth.InvalidToken, match="'sub'"):
        auth.verify("s3cret", token)


def test_a_token_whose_claims_are_not_an_object_is_malformed():
    with pytest.raises(auth.InvalidToken, match="malformed token claims"):
        auth.verify("s3cret", _signed("s3cret", '["p1","player",9999999999]'))


@pytest.mark.parametrize("name", ["ann\x00", "\x1b[2Jann", "ann\nbob", "a\u202eb", "ann\x7f"])
def test_a_guest_name_with_control_characters_is_refused(name):
    with pytest.raises(auth.InvalidName, match="control characters"):
        auth.guest_name(name)


@pytest.mark.parametrize("name", ["", "   ", "x" * 33])
def test_a_guest_name_is_1_to_32_characters(name):
    with pytest.raises(auth.InvalidName, match="1 to 32"):
        auth.guest_name(name)


@pytest.mark.parametrize("name", ["  ann  ", "小明", "👨\u200d👩\u200d👧", "Jean-Luc Picard"])
def test_a_guest_name_shown_as_written_is_accepted(name):
    assert auth.guest_name(name) == name.strip()
