"""Whom the per-address limits count: the TCP peer, or behind a trusted proxy the client it
forwarded; an IPv6 client by its /64."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from services.client_address import ClientAddress, trusted_networks


@dataclass
class Call:
    peer_text: str
    forwarded: tuple[str, ...] = ()

    def peer(self) -> str:
        return self.peer_text

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(("x-forwarded-for", value) for value in self.forwarded)


BEHIND_ENVOY = ClientAddress(trusted_networks("10.0.0.0/8, ::1"))


def test_without_trusted_proxies_the_tcp_peer_counts_whatever_it_forwards():
    assert ClientAddress().of(Call("ipv4:10.1.2.3:5000", ("203.0.113.7",))) == "10.1.2.3"


def test_a_trusted_proxy_names_the_client_in_x_forwarded_for():
    assert BEHIND_ENVOY.of(Call("ipv4:10.1.2.3:5000", ("203.0.113.7",))) == "203.0.113.7"


def test_an_untrusted_peer_cannot_choose_its_address_by_forwarding_one():
    assert BEHIND_ENVOY.of(Call("ipv4:198.51.100.9:5000", ("203.0.113.7",))) == "198.51.100.9"


def test_what_the_client_prepends_is_ignored_the_rightmost_untrusted_address_counts():
    call = Call("ipv4:10.1.2.3:5000", ("1.1.1.1, 203.0.113.7", "10.9.9.9"))
    assert BEHIND_ENVOY.of(call) == "203.0.113.7"


def test_an_ipv6_client_is_counted_by_its_64_block():
    one = BEHIND_ENVOY.of(Call("ipv6:[2001:db8:1:2::5]:5000"))
    other = BEHIND_ENVOY.of(Call("ipv6:[2001:db8:1:2:ffff::9]:5000"))
    assert one == other == "2001:db8:1:2::/64"
    assert BEHIND_ENVOY.of(Call("ipv6:[2001:db8:1:3::5]:5000")) != one


def test_an_ipv4_mapped_ipv6_peer_is_its_ipv4_address():
    assert ClientAddress().of(Call("ipv6:[::ffff:198.51.100.9]:5000")) == "198.51.100.9"


def test_a_trusted_proxy_over_ipv6_forwarding_an_ipv6_client_counts_its_64():
    assert BEHIND_ENVOY.of(Call("ipv6:[::1]:5000", ("2001:db8:a:b:c::1",))) == "2001:db8:a:b::/64"


def test_a_garbled_forwarded_entry_leaves_only_what_the_proxies_appended_after_it():
    call = Call("ipv4:10.1.2.3:5000", ("203.0.113.7, not-an-ip, 10.2.2.2",))
    assert BEHIND_ENVOY.of(call) == "10.2.2.2"


def test_a_trusted_proxies_entry_that_is_not_an_address_is_named():
    with pytest.raises(ValueError, match="'10.0.0.0/33' is not an IP address or CIDR block"):
        trusted_networks("127.0.0.1, 10.0.0.0/33")
