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


def test_a_tampered_token_is_refused_even_after_its_original_was_remembered():
    interceptor = auth.AuthInterceptor("s3cret")
    token, _ = auth.issue("s3cret", "p1")
    interceptor.identify(token)
    claims, _, sig = token.partition(".")
    forged = _b64(base64.urlsafe_b64decode(claims + "==").replace(b'"p1"', b'"p2"')) + "." + sig
    with pytest.raises(auth.InvalidToken, match="signature"):
        interceptor.identify(forged)


async def test_each_call_sees_its_own_callers_identity_in_unary_calls_and_streams():
    """The interceptor sets the caller for the call's handler only: concurrent calls of two
    players each see their own, in a unary call and on every message of a stream."""
    import asyncio

    import grpc

    async def whoami(request: bytes, context: object) -> bytes:
        await asyncio.sleep(0.01)  # the other player's call runs meanwhile
        return auth.current().player_id.encode()

    async def whoami_stream(request: bytes, context: object):  # type: ignore[no-untyped-def]
        for _ in range(3):
            await asyncio.sleep(0.01)
            yield auth.current().player_id.encode()

    server = grpc.aio.server(interceptors=[auth.AuthInterceptor("s3cret")])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("t.Who", {
        "Am": grpc.unary_unary_rpc_method_handler(whoami),
        "Stream": grpc.unary_stream_rpc_method_handler(whoami_stream)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as chan:
            def bearer(player: str) -> tuple[tuple[str, str], ...]:
                return (("authorization", f"Bearer {auth.issue('s3cret', player)[0]}"),)

            unary = chan.unary_unary("/t.Who/Am")
            stream = chan.unary_stream("/t.Who/Stream")

            async def streamed(player: str) -> list[bytes]:
                return [m async for m in stream(b"", metadata=bearer(player))]

            answers = await asyncio.gather(*(unary(b"", metadata=bearer(f"p{n}")) for n in range(6)),
                                           streamed("s1"), streamed("s2"))
            assert answers == [b"p0", b"p1", b"p2", b"p3", b"p4", b"p5", [b"s1"] * 3, [b"s2"] * 3]
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await unary(b"", metadata=(("authorization", "Bearer nonsense"),))
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await server.stop(None)
