"""The key that signs bearer tokens: the operator's (QIPAI_TOKEN_SECRET), else a random one this
machine generated on first start and keeps in `var/token-secret` (mode 0600).

Anyone who knows the key can sign an operator token, so a server reachable from other machines
refuses to start with a key that is public (a documented default or example) or short enough to
guess; on loopback only this machine's users can reach it, and any key goes (docs/operations.md).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path

KEY_FILE = Path("var") / "token-secret"
MIN_LENGTH = 32
# Keys that have been published: in this project's history, its docs and its example env file.
PUBLIC_KEYS = frozenset({
    "dev-insecure-secret", "change-me-in-production",
    "replace-me-with-the-output-of-openssl-rand-hex-32",
})


def signing_key(configured: str, key_file: Path = KEY_FILE) -> str:
    """`configured` when set, else the key in `key_file`, generated there on first use."""
    if configured:
        return configured
    try:
        return key_file.read_text().strip()
    except FileNotFoundError:
        pass
    key_file.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    try:
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process generated it first: use theirs
        return key_file.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key


def is_loopback(listen_addr: str) -> bool:
    """Whether `host:port` listens on this machine's loopback interface only."""
    host = listen_addr.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve to any interface


def exposure_problem(listen_addr: str, key: str) -> str | None:
    """Why `key` must not sign tokens for a server listening on `listen_addr`, or None."""
    if is_loopback(listen_addr):
        return None
    if key in PUBLIC_KEYS:
        weakness = "is a published default"
    elif len(key) < MIN_LENGTH:
        weakness = f"is shorter than {MIN_LENGTH} characters"
    else:
        return None
    return (f"refusing to listen on {listen_addr} (beyond loopback): QIPAI_TOKEN_SECRET {weakness}, "
            f"so anyone could sign an operator token; set it to a random key "
            f"(openssl rand -hex 32) or unset it to use the generated {KEY_FILE}")
