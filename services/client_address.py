"""Who a call comes from, as the per-address limits count it (guest logins, room creates,
joins and `WatchRoom`).

Behind a proxy (the shipped Envoy) every call's TCP peer is the proxy, so the proxy's
`x-forwarded-for` names the client, but only a proxy may be believed: a client that connects
directly could write any address there. So the header is read only when the peer is one of
QIPAI_TRUSTED_PROXIES, and then from its right end, past any further trusted proxies: the
first address no trusted proxy wrote is the client (what an attacker prepends stays left).

An IPv6 client is counted by its /64, the block one subscriber is given: it holds more
addresses than any limit could count one by one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

FORWARDED_FOR = "x-forwarded-for"
IPV6_PREFIX = 64


def trusted_networks(text: str) -> tuple[Network, ...]:
    """QIPAI_TRUSTED_PROXIES as networks: addresses or CIDR blocks, separated by commas;
    ValueError naming the entry that is neither."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"QIPAI_TRUSTED_PROXIES: {entry!r} is not an IP address or CIDR block "
                             f"(e.g. 10.0.0.0/8, ::1)") from None
    return tuple(networks)


class ClientAddress:
    """The key a call's client address is counted under (`of(context)`)."""

    def __init__(self, trusted: Iterable[Network] = ()) -> None:
        self.trusted = tuple(trusted)

    @classmethod
    def trusting(cls, proxies: str) -> ClientAddress:
        """Trusting the proxies of QIPAI_TRUSTED_PROXIES (`trusted_networks`)."""
        return cls(trusted_networks(proxies))

    def of(self, context: Any) -> str:
        """The client of the call: the TCP peer, or behind a trusted proxy the address it
        forwarded; an IPv6 address as its /64."""
        peer = _peer_address(str(context.peer() or ""))
        if peer is None:
            return str(context.peer() or "unknown")  # a Unix socket: one local client
        client = peer
        if self._trusts(peer):
            for hop in reversed(_forwarded(context.invocation_metadata())):
                client = hop
                if not self._trusts(hop):
                    break
        return _key(client)

    def _trusts(self, address: Address) -> bool:
        return any(address in network for network in self.trusted)


def _peer_address(peer: str) -> Address | None:
    """The IP of a gRPC peer string: `ipv4:1.2.3.4:5678`, `ipv6:[::1]:5678`."""
    kind, _, rest = peer.partition(":")
    if kind not in ("ipv4", "ipv6"):
        return None
    host = rest.rpartition(":")[0].strip("[]")
    try:
        return ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return None


def _forwarded(metadata: Any) -> list[Address]:
    """The addresses of every x-forwarded-for header, in order (unreadable entries end it:
    nothing left of them can be believed)."""
    hops: list[Address] = []
    for key, value in metadata or ():
        if key != FORWARDED_FOR:
            continue
        for part in str(value).split(","):
            try:
                hops.append(ipaddress.ip_address(part.strip().strip("[]")))
            except ValueError:
                hops.clear()  # a garbled entry: only what the proxies appended after it counts
    return hops


def _key(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)
