"""Where a text holds code rather than prose: fenced and indented code, Jira {code}/{noformat} blocks, diffs, stack
traces, log lines and shell prompts -> sorted, non-overlapping (start, end) character spans.

Why: inside code, a name, a date, an amount or a version is almost always an identifier, a timestamp of a log line or
a variable (`$1` in awk, `2016-10-28T16:33:11Z | TRACE`), never something the author states. The reference
assembler keeps only machine ids there (URLs, issue keys, addresses, Message-IDs, record ids). Line-based and
linear: one pass over the lines, no backtracking regex over the whole text.
"""

import bisect
import re
from collections.abc import Sequence

_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_WIKI_BLOCK = re.compile(r"\{(code|noformat)(?::[^}]*)?\}", re.I)
# A line that is code by its own shape.
_CODE_LINE = re.compile(
    r"^\s*(?:"
    r"at\s+[\w$.<>/]+\(.*\)\s*$"  # Java/JS stack frame
    r"|File\s+\"[^\"]+\",\s+line\s+\d+"  # Python stack frame
    r"|Traceback\s+\(most recent call last\)"
    r"|Caused\s+by:\s+[\w.$]+"
    r"|Exception\s+in\s+thread\s"
    r"|[\w.$]+(?:Exception|Error)(?::\s|$)"  # java.lang.NullPointerException: ...
    r"|\.\.\.\s+\d+\s+more\s*$"
    r"|\d+\s+[\w.]+\s+0x[0-9a-fA-F]+\s"  # iOS crash frame: 3 UIKit 0x00000001...
    r"|0x[0-9a-fA-F]{4,}\b"  # hex dump / address line
    r"|(?:[0-9a-fA-F]{2}\s){6,}"  # hex bytes
    r"|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?"  # log timestamp at line start
    r"|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s"
    r"|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)\]?[\s:|]"  # log level at line start
    r"|!ENTRY\s|!MESSAGE\s|!STACK\s"  # Eclipse logs
    r"|\$\s+\S"  # shell prompt
    # a crash-report or log header with a machine timestamp ("Date/Time: 2018-11-20 11:50:07.9619 -0800"); a record
    # field rendered as "Effective date: 2019-11-11 17:23:34" has neither fraction nor offset and stays prose
    r"|[\w /-]{1,30}:\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+|\s*[+-]\d{4})"
    r"|diff\s+--git\s|index\s+[0-9a-f]{7,}\.\.|@@\s+-\d|\+\+\+\s|---\s+(?:a/|b/|/dev/null)"  # diff headers
    r")"
)
# Inside a diff (after a diff header), +/- and context lines are code too.
_DIFF_BODY = re.compile(r"^[+\- ]")
_INDENTED = re.compile(r"^(?: {4,}|\t)\S")
# An indented line counts as code only when it looks like it (prose indented by a mail client stays prose).
_CODE_PUNCT = re.compile(r"[;{}=<>$]|\(\)|::|->|^\s*(?:def|class|import|return|if|for|var|let|const|public|private)\s")


def code_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of code in `text`, sorted and merged."""
    spans: list[tuple[int, int]] = []
    pos = 0
    fence: str | None = None
    wiki: str | None = None
    diff = False
    block_start = 0
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line)
        pos = end
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                spans.append((block_start, end))
                fence = None
            continue
        if wiki is not None:
            close = re.search(r"\{" + wiki + r"\}", line, re.I)
            if close:
                spans.append((block_start, start + close.end()))
                wiki = None
            continue
        fenced = _FENCE.match(line)
        if fenced:
            fence, block_start = fenced.group(1), start
            continue
        opened = _WIKI_BLOCK.search(line)
        if opened:
            rest = line[opened.end() :]
            close = re.search(r"\{" + opened.group(1) + r"\}", rest, re.I)
            if close:
                spans.append((start + opened.start(), start + opened.end() + close.end()))
            else:
                wiki, block_start = opened.group(1), start + opened.start()
            continue
        if _CODE_LINE.match(line):
            diff = diff or bool(re.match(r"\s*(?:diff\s+--git|@@\s+-\d|\+\+\+\s|---\s+(?:a/|b/))", line))
            spans.append((start, end))
        elif diff and _DIFF_BODY.match(line) and stripped:
            spans.append((start, end))
        elif _INDENTED.match(line) and _CODE_PUNCT.search(line):
            spans.append((start, end))
        elif not stripped:
            continue
        else:
            diff = False
    if fence is not None or wiki is not None:  # unclosed block: code to the end
        spans.append((block_start, len(text)))
    return _merged(spans)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps a code span (spans sorted and merged, as code_spans returns them)."""
    i = bisect.bisect_left(spans, (end,))
    return i > 0 and spans[i - 1][1] > start
