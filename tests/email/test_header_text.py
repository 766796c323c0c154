"""header_text skips the stdlib's unstructured-header parse for plain ASCII values (issue 13): the text it returns is
the one the parser gives, for folded, encoded, structured and repeated headers alike."""

from connectors.email.mime_parts import header_text
from connectors.email.records import parse_message

MAIL = (
    b"From: =?utf-8?q?J=C3=BCrgen?= <j@example.com>\r\n"
    b'To: "Ada, L." <ada@example.com>,  bob@example.com\r\n'
    b"Subject: Re: [VOTE]  Release 1.2\r\n"
    b"\tfolded  on two lines\r\n"
    b"List-Id: Dev list <dev.example.org>\r\n"
    b"X-Note: =?iso-8859-1?q?caf=E9?= au lait\r\n"
    b"X-Note: second\r\n"
    b"Thread-Topic: a=?b c\r\n"
    b"Date: Mon, 12 Mar 2018 15:01:13 +0100\r\n"
    b"\r\n"
    b"body\r\n"
)


def parser_text(msg, name: str) -> str:
    return " ".join(str(msg[name]).split())


def test_header_text_equals_the_parsers_decoded_text_for_every_kind_of_header():
    # given a mail with folded, encoded, structured, repeated and odd unstructured headers
    msg = parse_message(MAIL)
    for name in ("From", "To", "Subject", "List-Id", "X-Note", "Thread-Topic", "Date"):
        # when its text is read, then it is what the stdlib parser decodes (first header of a name)
        assert header_text(msg, name) == parser_text(msg, name), name
    assert header_text(msg, "Subject") == "Re: [VOTE] Release 1.2 folded on two lines"
    assert header_text(msg, "X-Note") == "café au lait"
    assert header_text(msg, "Missing") is None
