"""A small slice of the bundled sample (sample/exports) as episodes, for the real-model tier: built by `graphfeed
preview` (the same readers, intent model and episode builder as a run), so the model sees what a run would give it."""

import contextlib
import io
from pathlib import Path

from ground.episode import Episode

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "exports"
# Two short English mails of one thread and one Confluence page: small enough for two CI cores.
MAILS = ["20260420-angebot-datenwerk.eml", "20260603-change-of-contact.eml"]
PAGES = "ACME-xml-export.zip"


def preview_episodes(source: str, paths: list[str]) -> list[Episode]:
    from pipelines.commands import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["preview", "--source", source, *paths]) == 0
    return [Episode.model_validate_json(line) for line in out.getvalue().splitlines() if line.strip()]


def sample_slice(group_id: str, mails: int = 2, pages: int = 1) -> list[Episode]:
    email = preview_episodes("email", [str(SAMPLE / "email" / "archive-2026-q2" / m) for m in MAILS[:mails]])
    confluence = preview_episodes("confluence", [str(SAMPLE / "confluence" / PAGES)])
    confluence = sorted((e for e in confluence if e.metadata.kind == "page"), key=lambda e: len(e.content))[:pages]
    return [e.model_copy(update={"group_id": group_id}) for e in email + confluence]
