"""Whole-corpus tier: every file of the shared email corpus through the reader, nothing may raise."""

import collections
from pathlib import Path

import pytest

from connectors.email import EmailExportReader
from ground.records import RecordFailure

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "email"

# SOURCES.md: files that are deliberately not RFC 822 and must fail with a clear reason.
NOT_MAIL = [
    "cpython_test_email/msg_19.txt",
    "enmime/mail/erroneous.raw",
    "mime4j_testmsgs/testmsgs/malformedHeader-noheader.msg",
    "mime4j_testmsgs/testmsgs/malformedHeaderStartsBody-noheader.msg",
    "stalwart_mail_parser/malformed/019.eml",
]


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
def test_every_corpus_file_yields_records_or_failures_without_raising():
    files = sorted(str(p) for p in CORPUS.rglob("*") if p.is_file())
    per_file: dict[str, collections.Counter] = {f: collections.Counter() for f in files}
    reasons: collections.Counter = collections.Counter()
    for item in EmailExportReader([CORPUS]).read():
        item.model_dump_json()  # staging and the ledger need valid UTF-8: no lone surrogates from 8-bit headers
        where = item.location.file if isinstance(item, RecordFailure) else item.origin.file
        kind = "failure" if isinstance(item, RecordFailure) else "record"
        per_file[where][kind] += 1
        if isinstance(item, RecordFailure):
            reasons[item.error_class.value] += 1
    empty = [f for f, counts in per_file.items() if not counts]
    assert empty == []
    records = sum(c["record"] for c in per_file.values())
    failures = sum(c["failure"] for c in per_file.values())
    print(f"\nemail corpus: {len(files)} files, {records} records, {failures} failures {dict(reasons)}")
    assert records > 1000
    for name in NOT_MAIL:
        counts = per_file[str(CORPUS / name)]
        assert counts == collections.Counter(failure=1), (name, counts)
