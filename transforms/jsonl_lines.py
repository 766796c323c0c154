"""The numbered lines of a JSON Lines file, for the loaders whose every error names file and line (labelled intent
units and examples, labelled references)."""

from collections.abc import Iterator
from pathlib import Path


def numbered_lines(path: Path | str, error: type[Exception], what: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of a UTF-8 file, blank lines skipped; an unreadable file raises `error` naming it."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read {what}: {exc}") from exc
    for lineno, line in enumerate(lines, start=1):
        if line.strip():
            yield lineno, line
