"""Tokens: signed, expiring, and checked once per token rather than once per call."""

from __future__ import annotations

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
