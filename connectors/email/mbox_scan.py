"""Split an mbox stream into messages without indexing the file (unlike ``mailbox.mbox``).

Memory is bounded by the largest single message (and capped by ``max_bytes``): the stream is read in buffered
chunks line by line, one message is held at a time, and each is handed out with its byte offset.

Separator rule: a line starting with ``From `` at the start of the file or right after an empty line
(mboxo/mboxrd writers always put a blank line before it). Body lines written as ``>From `` / ``>>From `` are
unquoted by one ``>`` (mboxrd rule; for mboxo it is the only quoting that exists).
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

_QUOTED_FROM = re.compile(rb"^>+From ")
_MAX_LINE = 1 << 20  # lines longer than this are read in pieces: still bounded memory


@dataclass
class MboxMessage:
    index: int  # 0-based message number in the stream
    offset: int  # byte offset of the separator line (or of the first byte when there is none)
    from_line: str | None  # the separator line without "From " (envelope sender and date), if any
    data: bytes | None  # the message bytes; None when it was over the size limit
    size: int  # message size in bytes (counted even when data was dropped)


_BLANK = (b"\n", b"\r\n", b"\r")  # a blank line, whatever its line ending


def iter_mbox(stream: BinaryIO, max_bytes: int = 50_000_000) -> Iterator[MboxMessage]:
    """Yield one MboxMessage per message. Leading non-blank text before the first separator is a message too."""
    index = 0
    position = 0
    offset = 0
    from_line: str | None = None
    parts: list[bytes] = []
    size = 0
    over = False
    previous_blank = True
    pending_blank: bytes | None = None  # a blank line is held back: it may belong to the next separator

    def finish() -> MboxMessage | None:
        if from_line is None and (size == 0 or not b"".join(parts).strip()) and not over:
            return None
        return MboxMessage(index, offset, from_line, None if over else b"".join(parts), size)

    while True:
        line = stream.readline(_MAX_LINE)
        if not line:
            break
        line_start = position
        position += len(line)
        if line.startswith(b"From ") and previous_blank:
            message = finish()
            if message is not None:
                yield message
                index += 1
            offset = line_start
            from_line = line[5:].decode("latin-1").strip()
            parts, size, over, pending_blank = [], 0, False, None
            previous_blank = False
            continue
        if pending_blank is not None:
            size += len(pending_blank)
            if not over:
                parts.append(pending_blank)
            pending_blank = None
        previous_blank = line in _BLANK
        if previous_blank:
            pending_blank = line
            continue
        if line[:1] == b">" and _QUOTED_FROM.match(line):
            line = line[1:]
        size += len(line)
        if over:
            continue
        if size > max_bytes:
            over, parts = True, []
            continue
        parts.append(line)
    message = finish()
    if message is not None:
        yield message
