"""read_plain (issue 30's fast path for plain single-part text mail) must give EXACTLY the record the stdlib parse
gives: checked over generated plain messages (headers folded, encoded, 8-bit, repeated; bodies in ASCII, UTF-8,
CRLF, empty) and over every message of the shared corpus's mail archives that it accepts."""

import datetime as dt
import io
import random
import zipfile
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from connectors.email.dates import _canonical_date, parse_rfc5322_date
from connectors.email.mbox_scan import iter_mbox
from connectors.email.plain_message import read_plain
from connectors.email.records import (
    MAIL_POLICY,
    UTF8_BOM,
    not_mail_reason,
    parse_message,
    record_from_bytes,
    record_from_message,
)
from ground.records import Origin, RecordFailure, SourceRecord, as_utc

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "email"
ORIGIN = Origin(file="x.mbox", index=3, offset=10)


def stdlib_record(data: bytes, from_line: str | None) -> SourceRecord | RecordFailure:
    """The path every message took before read_plain: the stdlib's parse, body lookup and defects."""
    data = data.removeprefix(UTF8_BOM)
    msg = parse_message(data)
    reason = not_mail_reason(data, msg, in_mbox=from_line is not None)
    assert reason is None, reason
    return record_from_message(msg, ORIGIN, from_line)


def assert_same_as_stdlib(data: bytes, from_line: str | None = None) -> None:
    fast = record_from_bytes(data, ORIGIN, from_line)
    slow = stdlib_record(data, from_line)
    assert type(fast) is type(slow)
    assert fast.model_dump() == slow.model_dump(), data
    plain = read_plain(data.removeprefix(UTF8_BOM), MAIL_POLICY)
    assert plain is not None
    assert list(plain[0].raw_items()) == list(parse_message(data.removeprefix(UTF8_BOM)).raw_items())


FROMS = ["u1@example.com", "Ada Lovelace <ada@example.com>", '"Doe, J." <j@Example.COM>', "noreply@ci.example.org"]
SUBJECTS = ["ping 1", "Re: [list] a  b", "=?utf-8?q?J=C3=BCrgen?= says hi", "", "caf\xe9 au lait", "x" * 120]
TYPES = [None, "text/plain", "text/plain; charset=utf-8", 'TEXT/Plain; charset="UTF-8"', "text/plain; charset=us-ascii"]
BODIES = ["ok 1\n", "", "\n\nline one\nline two\n\n", "caf\xe9 \u2603\n", "crlf\r\nbody\r\n", ">From quoted\n"]
DATES = [
    "Mon, 04 May 2026 10:00:00 +0000",
    "4 May 2026 10:00 -0700",
    "Tue, 29 Feb 2026 10:00:00 +0000",
    "Wed, 01 Jan 2025 23:59:59 -0000",
    "garbage",
    None,
]


def generated(seed: int) -> bytes:
    """One random plain message: the headers policy.default reads in every way (folding, encoded words, raw 8-bit
    text, repeats), the bodies get_content decodes."""
    rng = random.Random(seed)
    lines = [f"From: {rng.choice(FROMS)}", f"To: {', '.join(rng.sample(FROMS, rng.randint(1, 3)))}"]
    if rng.random() < 0.3:
        lines.append("Cc: b@example.com,\n\tc@example.com")
    subject = rng.choice(SUBJECTS)
    lines.append(f"Subject: {subject}" if rng.random() < 0.8 else f"Subject:\n  {subject}")
    date = rng.choice(DATES)
    if date is not None:
        lines.append(f"Date: {date}")
    if rng.random() < 0.8:
        lines.append(f"Message-ID: <m{seed}@Example.COM>")
    if rng.random() < 0.3:
        lines += ["References: <a@x> <b@x>", "In-Reply-To: <b@x>", "List-Id: team <team.example.com>"]
    if rng.random() < 0.2:
        lines += ["Received: from x by y; Mon, 04 May 2026 11:00:00 +0100", "X-Empty:", "Precedence: bulk"]
    content_type = rng.choice(TYPES)
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    if rng.random() < 0.3:
        lines.append(f"Content-Transfer-Encoding: {rng.choice(['7bit', '8bit', ' 8BIT'])}")
    rng.shuffle(lines)
    body = rng.choice(BODIES)
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def test_generated_plain_messages_give_the_stdlib_record():
    accepted = 0
    for seed in range(600):
        data = generated(seed)
        if read_plain(data, MAIL_POLICY) is None:
            continue
        accepted += 1
        assert_same_as_stdlib(data, "u1@example.com Mon May  4 10:00:00 2026" if seed % 2 else None)
    assert accepted == 600  # every generated message is plain: none may be left to the stdlib by mistake


@pytest.mark.parametrize(
    "data",
    [
        b"From: a@x\r\nSubject: crlf\r\n\r\nbody\r\n",  # CR in the header block
        b" folded first\nFrom: a@x\n\nbody\n",  # FirstHeaderLineIsContinuationDefect
        b"From: a@x\nnot a header\n\nbody\n",  # MissingHeaderBodySeparatorDefect
        b":no name\nFrom: a@x\n\nbody\n",
        b"From: a@x\nContent-Type: text/html\n\n<p>x</p>\n",
        b"From: a@x\nContent-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n",
        b"From: a@x\nContent-Type: text/plain; format=flowed\n\nbody\n",
        b"From: a@x\nContent-Transfer-Encoding: base64\n\naGk=\n",
        b"From: a@x\nContent-Disposition: attachment; filename=a.txt\n\nbody\n",
        b"From: a@x\nContent-Type: text/plain\nContent-Type: text/html\n\nbody\n",
        b"From: a@x\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\nx\n--b--\n",
        b"From: a@x\nSubject: no body separator\n",
        b"From a@x Mon May  4 10:00:00 2026\nFrom: a@x\n\nbody\n",
    ],
)
def test_anything_else_is_left_to_the_stdlib(data):
    assert read_plain(data, MAIL_POLICY) is None
    assert record_from_bytes(data, ORIGIN, "a@x Mon May  4 10:00:00 2026").model_dump() == (
        record_from_message(parse_message(data), ORIGIN, "a@x Mon May  4 10:00:00 2026").model_dump()
    )


def corpus_messages() -> Iterator[tuple[str, bytes, str | None]]:
    """(where, bytes, envelope line) of every message in the corpus: mbox messages, single files, zip members."""

    def of(where: str, data: bytes) -> Iterator[tuple[str, bytes, str | None]]:
        if data.startswith(b"From ") or where.lower().endswith((".mbox", ".mbx")):
            for message in iter_mbox(io.BytesIO(data)):
                if message.data is not None:
                    yield f"{where}#{message.index}", message.data, message.from_line
        else:
            yield where, data, None

    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if data.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    if not info.is_dir():
                        yield from of(f"{path}!{info.filename}", archive.read(info))
        else:
            yield from of(str(path), data)


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_every_plain_corpus_message_gives_the_stdlib_record():
    accepted = []
    for where, data, from_line in corpus_messages():
        body = data.removeprefix(UTF8_BOM)
        if read_plain(body, MAIL_POLICY) is None:
            continue
        if not_mail_reason(body, parse_message(body), in_mbox=from_line is not None):
            continue
        accepted.append(where)
        assert_same_as_stdlib(data, from_line)
    assert len(accepted) >= 50, accepted  # the corpus holds many plain messages: the comparison is not vacuous


def test_canonical_dates_read_as_the_stdlib_reads_them():
    """parse_rfc5322_date reads ``Mon, 04 May 2026 10:00:00 +0000`` itself: same moment, same zone, same error as
    parsedate_to_datetime + as_utc, out-of-range days, times, offsets and two-digit-style years included."""
    rng = random.Random(30)
    days, months = ["Mon, ", "Sun, ", "", "Foo, "], ["Jan", "feb", "MAY", "Dec", "Xyz", "Sept"]
    read_directly = 0
    for _ in range(20_000):
        value = (
            f"{rng.choice(days)}{rng.randint(0, 32)} {rng.choice(months)} "
            f"{rng.choice(['0050', '0100', '1970', '2026', '9999', '0001'])} {rng.randint(0, 25):02d}:"
            f"{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d} {rng.choice('+-')}{rng.randint(0, 2500):04d}"
        )
        expected, found = outcome(stdlib_date, value), outcome(parse_rfc5322_date, value)
        assert (expected, repr(expected)) == (found, repr(found)), value
        try:
            read_directly += _canonical_date(value) is not None
        except (ValueError, OverflowError):
            pass
    assert read_directly > 3_000  # the direct reading was exercised, not only the fallback


def stdlib_date(value: str) -> dt.datetime | None:
    try:
        parsed = parsedate_to_datetime(" ".join(value.split()))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return as_utc(parsed) if parsed is not None else None


def outcome(parse: Callable[[str], dt.datetime | None], value: str) -> object:
    try:
        return parse(value)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc).__name__
