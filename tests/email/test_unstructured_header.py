"""Long unstructured headers are decoded in pieces (connectors/email/unstructured.py): the text must be the stdlib
parser's for any value, whatever the cuts, so the pieces are made tiny here and the values generated."""

from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.email.mime_parts import header_text
from connectors.email.records import MAIL_POLICY, parse_message
from connectors.email.unstructured import LONG, unstructured_text

# Tokens that exercise every rule of get_unstructured: valid q/b words, bad charsets and encodings, unclosed and
# overlapping markers ("=?=", "?=" runs), hex escapes after "?=", 8-bit bytes (surrogates), whitespace of all kinds.
TOKENS = [
    "=?utf-8?q?J=C3=BCrgen?=",
    "=?utf-8?b?w6TDtsO8?=",
    "=?iso-8859-1?q?caf=E9?=",
    "=?utf-8?q?a_b?=",
    "=?bogus?q?x?=",
    "=?utf-8?x?y?=",
    "=?utf-8?q?",
    "=?",
    "?=",
    "=?=",
    "?=41",
    "=?utf-8?q?a?=41?=",
    "plain",
    "Re:",
    "\udce9",
    "é",
    " ",
    "  ",
    "\t",
    "\n ",
    "\r\n\t",
    "=",
    "?",
]


def stdlib_text(raw: str) -> str:
    return str(MAIL_POLICY.header_fetch_parse("Subject", raw))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.integers(min_value=1, max_value=40))
def test_pieces_decode_to_the_stdlib_text(tokens, piece):
    # given any value built from tricky tokens, cut into pieces of a few characters
    raw = "".join(tokens)
    # when it is decoded in pieces, then the text is the stdlib parser's
    assert unstructured_text(raw, piece) == stdlib_text(raw)


def test_a_long_encoded_subject_reads_as_the_parser_reads_it():
    # given a mail whose Subject is thousands of folded encoded words (as a hostile corpus message has)
    words = "\r\n ".join(f"=?utf-8?q?Zypernsonne_{i}_qu=C3=A4lte?=" for i in range(400))
    msg = parse_message(b"From: a@example.com\r\nSubject: " + words.encode() + b"\r\n\r\nbody\r\n")
    assert len(words) > LONG
    # when its text is read, then it is the stdlib parser's (whitespace folded as header_text does)
    assert header_text(msg, "Subject") == " ".join(str(msg["Subject"]).split())
    assert header_text(msg, "Subject").startswith("Zypernsonne 0 quälteZypernsonne 1 quälte")
