"""header_addresses answers a bare address (``u0@example.com``) without the stdlib's address parse (issue 30: the
parse was a tenth of a tiny mail's cost): the pairs it returns are the parser's, for plain values and for every value
that only looks plain."""

from email.message import Message

import pytest

from connectors.email.mime_parts import header_addresses
from connectors.email.records import parse_message

VALUES = [
    "u0@example.com",
    "  Ada.Lovelace+list@mail-1.example.org  ",
    "a_b-c@x",
    "UPPER@Example.COM",
    "Ada <ada@example.com>",
    '"Ada, L." <ada@example.com>',
    "ada@example.com, bob@example.com",
    "ada@example.com (Ada)",
    "a..b@example.com",
    ".a@example.com",
    "a.@example.com",
    "ada@[192.0.2.1]",
    "ada@example..com",
    "ada@-example.com",
    "@example.com",
    "undisclosed-recipients:;",
    "<>",
    "=?utf-8?q?J=C3=BCrgen?= <j@example.com>",
]


def parser_pairs(msg: Message, name: str) -> list[tuple[str, str]]:
    return [
        (address.display_name or "", address.addr_spec or "")
        for header in msg.get_all(name) or []
        for address in header.addresses
        if address.addr_spec and address.addr_spec != "<>"
    ]


@pytest.mark.parametrize("value", VALUES)
def test_given_an_address_header_when_read_then_the_pairs_are_the_parsers(value):
    # given a mail whose To (twice) and From carry the value
    msg = parse_message(f"From: {value}\r\nTo: {value}\r\nTo: bob@example.com\r\nSubject: x\r\n\r\nbody\r\n".encode())
    for name in ("From", "To"):
        # when its addresses are read, then they are what the stdlib parser gives
        assert header_addresses(msg, name) == parser_pairs(msg, name), (name, value)
    # and an absent header has none
    assert header_addresses(msg, "Cc") == []
