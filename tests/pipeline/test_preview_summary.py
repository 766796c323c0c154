"""Given an export where one mail has a body, one only a subject and one nothing at all, when previewed, then stderr
carries a per-kind table (records, episodes, failures, title-only, empty, mean length) and a WARNING naming them."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAD = (
    "Message-ID: <{id}@example.com>\nFrom: Grace <grace@example.com>\nTo: heidi@example.com\n"
    "Date: Tue, 02 Jun 2026 10:00:00 +0000\n{subject}Content-Type: text/plain; charset=utf-8\n\n"
)


def mail(folder: Path, name: str, subject: str | None, body: str) -> None:
    subject_line = f"Subject: {subject}\n" if subject else ""
    (folder / name).write_text(HEAD.format(id=name.split(".")[0], subject=subject_line) + body)


def test_preview_summary_makes_title_only_and_empty_mails_impossible_to_miss(tmp_path):
    exports = tmp_path / "mail"
    exports.mkdir()
    mail(exports, "full.eml", "Budget", "The budget for phase 1 is approved.\n")
    mail(exports, "titleonly.eml", "Only a subject", "")
    mail(exports, "hollow.eml", None, "")
    (exports / "broken.eml").write_bytes(b"\x00\x01 not a mail")
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.commands", "preview", "--source", "email", str(exports)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GRAPHFEED_HOME": str(tmp_path / "home")},
    )
    lines = run.stderr.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["kind", "records"])
    rows = {
        line.split()[0]: line.split()[1:]
        for line in lines[header + 1 :]
        if not line.startswith(("WARNING", "graphfeed"))
    }
    records, episodes, _, title_only, empty, mean = rows["email"]
    assert (records, episodes, title_only, empty) == ("3", "3", "1", "1")
    assert int(mean) > 0
    warning = [line for line in lines if line.startswith("WARNING")]
    assert len(warning) == 1 and "1 title-only and 1 empty email episode(s) of 3" in warning[0]
    assert "<titleonly@example.com>" in warning[0] and "<hollow@example.com>" in warning[0]
    failures = [v for k, v in rows.items() if k.startswith("failed:")]
    assert sum(int(v[2]) for v in failures) == sum(1 for line in lines if line.startswith("FAILURE"))
