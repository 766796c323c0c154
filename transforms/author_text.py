"""What the author wrote in this unit: the text intent classification and NER read.

Real units are mostly not the author's words: quoted replies, signatures, list footers, bot wrappers ("Github user X
commented on the issue:", "To unsubscribe, e-mail: ..."), code, stack traces, logs, diffs and environment dumps.
`author_text` keeps the author's own new prose and collapses each non-prose block to one marker line
("[code]", "[stack trace]", "[log]", "[diff]", "[environment]"), so "here is the trace: [stack trace]" still reads as a
bug report. The subject / issue summary is returned apart as a second, weaker input (a comment's label comes from the
comment). Pure and deterministic; the episode content keeps everything this drops.
"""

import re
from typing import NamedTuple

from transforms.quotes import strip_reply

MAIL_KINDS = frozenset({"email", "email_message", "emailmessage", "mail"})

CODE, TRACE, LOG, DIFF, ENV = "[code]", "[stack trace]", "[log]", "[diff]", "[environment]"
MARKERS = (CODE, TRACE, LOG, DIFF, ENV)


class AuthorText(NamedTuple):
    text: str  # the author's own new prose, non-prose blocks collapsed to markers
    subject: str  # subject / summary without Re:/Fwd:/[jira] prefixes ("" when none)


# ------------------------------------------------------------------------------------------- blocks

_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_WIKI_CODE = re.compile(r"\{(code|noformat)(?::[^}\n]*)?\}.*?(?:\{\1\}|\Z)", re.S | re.I)
_WIKI_QUOTE = re.compile(r"\{quote\}.*?(?:\{quote\}|\Z)", re.S | re.I)
_GITHUB_REPLY_NOTE = re.compile(r"^If your project is set up for it, you can reply.*?with INFRA\.\s*$", re.M | re.S)
_HTML_PRE = re.compile(r"<pre\b[^>]*>.*?(?:</pre>|\Z)", re.S | re.I)
_GITHUB_DIFF = re.compile(r"^[ \t]*--- Diff: .*?(?:^[ \t]*--- End diff --[ \t]*$|\Z)", re.M | re.S)

# ------------------------------------------------------------------------------------------- boilerplate lines

_BOILERPLATE = re.compile(
    "|".join(
        [
            # mailing-list footers
            r"to unsubscribe(,| from this)",
            r"for additional commands, e-?mail",
            r"you received this message because",
            r"to post to this group",
            r"visit this group at",
            r"for more options, visit",
            r"unsubscribe:? .*@",
            # Apache Git Service / GitHub notification wrappers
            r"this is an automated message from the apache git service",
            r"to respond to the message, please log on",
            r"url above to go to the specific comment",
            r"for queries about this service, please contact",
            r"users@infra\.apache\.org$",
            r"apache git services$",
            r"with regards,$",
            r"github user \S+ (commented on (the|a) |opened a pull request|closed the pull request)",
            r"commit [0-9a-f]{7,40}$",
            r"parents?: [0-9a-f]{6,}",
            r".{1,80} wrote on .{4,60}:$",
            r"\S+ (opened|closed|merged|reopened|commented on|pushed to|"
            r"requested changes on|approved|created|deleted|synchronized) (a new |the )?(pull request|issue|pr|branch|"
            r"discussion|diff)\b.*#\d+",
            r"\S+ commented on (issue|pull request) #\d+",
            r"url: https?://\S+$",
            r"you can merge this pull request into a git repository by running",
            r"\$? ?git pull https?://",
            r"alternatively you can review and apply these changes as the patch at",
            r"to close this pull request, make a commit to your",
            r"with \(at least\) the following in the commit message",
            r"this closes #\d+$",
            r"commit summary:?$",
            r"file changes:?$",
            r"patch links:?$",
            r"you are receiving this because",
            r"reply to this email directly, view it on github",
            r"view it on github",
            r"notification settings",
            # Jira notification wrappers
            r"\[ ?https?://\S+/browse/\S+ ?\]$",
            r"\S[^:\n]{0,60} (commented|updated|created|resolved|closed|reopened|"
            r"assigned|edited a comment) on [a-z][a-z0-9_]+-\d+:?$",
            r"this message was sent by atlassian (jira|confluence)",
            r"\(v\d+\.\d+[\d.]*#\d+\)$",
            r"\(?was: .*\)?$",
            # commit notification mails
            r"repository: \S+$",
            r"updated branches:$",
            r"refs/heads/\S+ [0-9a-f]{6,}",
            r"commit: https?://",
            r"tree: https?://",
            r"diff: https?://",
            r"branch: refs/heads/",
            r"project: https?://",
            r"(author|committer|authored|committed): ",
            r"git-svn-id: ",
            r"\d+ files? changed(, \d+ insertions?\(\+\))?",
            r"date: +\d{4}-\d\d-\d\d",
            # CRM / mail client clutter
            r"sent from my \S+",
            r"get outlook for \S+",
            r"this e-?mail (and any attachments )?(is|are|may be) confidential",
            r"if you are not the intended recipient",
            r"please consider the environment before printing",
            r"\[image: [^\]]*\]$",
            r"\*{3,} ?(external|caution)[^*]*\*{3,}",
        ]
    ),
    re.I,
)

# ------------------------------------------------------------------------------------------- non-prose lines

_TRACE = re.compile(
    r"^\s*(at\s+[\w$.<>/\[\]-]+(\(.*\)?)?\s*$|(caused by|suppressed|wrapped by)\s*:|\.\.\.\s*\d+\s+(more|common frames)|"
    r"exception in thread|traceback \(most recent call last\)|file \".*\", line \d+|"
    r"([\w$]+\.)+[\w$]*(exception|error|throwable)\b(:.*)?$|[\w.]*(exception|error)\s*:\s|#\d+\s+0x[0-9a-f]+|"
    r"\d+\s+[\w.+-]+\s+0x[0-9a-f]{6,}|\[error\] .*(\.java|\.js|\.m|\.py):\d+|"
    r"(thread \d+|frame #\d+|\*\*\* terminating app)|-\[\w+ \w+:?\]|^\s*[\w.]+\.(java|kt|js|py|m|swift|cpp|c):\d+)",
    re.I,
)
_LOG = re.compile(
    r"^\s*(\[?(info|warn|warning|error|debug|trace|fatal|severe|notice|verbose)\]?[\s:]|"
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[?\d\d:\d\d:\d\d([.,]\d+)?\]?\s|"
    r"[A-Z][a-z]{2} \d\d? \d\d:\d\d:\d\d|\d+-\d+ \d\d:\d\d:\d\d\.\d+|[IWEDV]/[\w.]+\s*\(|"
    r"(i|w|e|d|v)/\w+:|\[\s*\d+\.\d+\])",
    re.I,
)
_LOG_TAG = re.compile(r"^\s*\[[a-z][\w.-]{1,15}\]\s+\S")  # [javac] ..., [exec] ... (not [MNG-12] Title)
_DIFF = re.compile(r"^(diff --git |index [0-9a-f]+\.\.|@@ .* @@|\+\+\+ |--- a/|--- /|[+-](?![+-]{2}))")
_DIFF_HEADER = re.compile(r"^(diff --git |@@ -\d|\+\+\+ [ab/])")
_ENV = re.compile(r"^\s*[A-Za-z][\w .()/-]{0,40}?\s*(:|=)\s*\S.{0,100}$")
_SHELL = re.compile(r"^\s*(\$|C:\\[^>]*>|PS [^>]*>|\w+@[\w.-]+:[^$#]*[$#])\s+\S")
_CODE_START = re.compile(
    r"^\s*(import |from [\w.]+ import |package |#include|def |class \w|public |private |protected |static |"
    r"function\b|var |let |const |return\b|if ?\(|for ?\(|while ?\(|else\b|try ?\{|catch ?\(|\}|\{|//|/\*|\*/|"
    r"<\?xml|<!--|</?[\w:.-]+(\s[^>]*)?/?>\s*$|@\w+(\(|$)|\w+\s*=\s*[^=]|\w+\(.*\);?\s*$)"
)
_CODE_END = re.compile(r"[;{}]\s*$|^\s*[\])}]+[,;]?\s*$")
_TABLE_ROW = re.compile(r"^\|.*\|$")  # tables carry content, not code
_HEADING = re.compile(r"^(#{1,6}|h[1-6]\.)\s+[^\W\d_]")  # "# Scope", "h3. Steps to Reproduce"
_VOTE = re.compile(r"^[+-][01](\.\d+)?(?!\d)")  # "+1 (binding)", "-1, this belongs in a plugin"
_SYMBOLS = re.compile(r"[{}()\[\];=<>|&$#@\\/*_^`]")
_WORDS = re.compile(r"[^\W\d_]{2,}")


def _line_class(line: str, in_diff: bool) -> str | None:
    """The marker of a non-prose line, None for prose (or a blank line). +/- lines are diff only in a diff."""
    s = line.strip()
    if not s or s in MARKERS or _VOTE.match(s) or _TABLE_ROW.match(s) or _HEADING.match(s):
        return None
    if _TRACE.search(s):
        return TRACE
    if in_diff and _DIFF.match(line):
        return DIFF
    if _LOG.match(s) or _LOG_TAG.match(s):
        return LOG
    if _SHELL.match(s):
        return CODE
    if _CODE_END.search(s):
        return CODE
    if _ENV.match(s) and not _is_prose(s):
        return ENV
    symbols = len(_SYMBOLS.findall(s))
    if _CODE_START.match(s) and (symbols / len(s) > 0.05 or not _is_prose(s)):
        return CODE
    if symbols >= 3 and symbols / len(s) > 0.12 and not _is_prose(s):
        return CODE
    return None


def _is_prose(s: str) -> bool:
    """A sentence: four or more words, mostly letters."""
    words = _WORDS.findall(s)
    if len(words) < 4:
        return False
    letters = sum(len(w) for w in words)
    return letters / max(len(s), 1) >= 0.6


def _collapse(lines: list[str]) -> list[str]:
    """Runs of one kind of non-prose line (blank lines inside allowed) become one marker line. Fewer than three
    environment-like lines ("Version: 3.1", "Note: ...") stay: that is prose."""
    in_diff = any(_DIFF_HEADER.match(line) for line in lines)
    classes = [_line_class(line, in_diff) for line in lines]
    out: list[str] = []
    i = 0
    while i < len(lines):
        cls = classes[i]
        if cls is None:
            out.append(lines[i])
            i += 1
            continue
        j, count = i, 0
        while j < len(lines) and (
            classes[j] == cls or (not lines[j].strip() and j + 1 < len(lines) and classes[j + 1] == cls)
        ):
            count += classes[j] == cls
            j += 1
        if cls == ENV and count < 3:
            out.extend(lines[i:j])
        elif not (out and out[-1].strip() == cls):
            out.append(cls)
        i = j
    return out


def _drop_quotes(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.lstrip().startswith((">", "bq. "))]


_RULE_LINE = re.compile(r"^\s*[-_=*~#+]{2,}\s*$")


def _drop_repeated_paragraphs(lines: list[str]) -> list[str]:
    """A paragraph said twice (a PR description repeated as its commit message) is read once."""
    out: list[str] = []
    seen: set[str] = set()
    paragraph: list[str] = []
    for line in [*lines, ""]:
        if line.strip():
            paragraph.append(line)
            continue
        if paragraph:
            key = " ".join(" ".join(paragraph).split()).casefold()
            if key not in seen or key in MARKERS:
                seen.add(key)
                out.extend(paragraph)
            paragraph = []
        out.append(line)
    return out[:-1]


_SUBJECT_PREFIX = re.compile(
    r"^\s*((re|aw|wg|fw|fwd|sv|vs|antw|回复|答复|转发)\s*(\[\d+\])?\s*[:：]\s*|"
    r"\[(github|jira|jira-?\w*|git|svn)\]\s*|\[(commented|updated|created|resolved|closed|"
    r"reopened|assigned|work logged)\]\s*|"
    # a Jira comment record's title (connectors/jira): the labelled units' subject is the issue summary alone
    r"comment on [a-z][a-z0-9_]*-\d+\s*:\s*)+",
    re.I,
)


def clean_subject(subject: str | None) -> str:
    """'Re: [jira] [Commented] (MNG-1) Foo' -> '(MNG-1) Foo'; [VOTE] and [RESULT] are kept (they carry the act)."""
    if not subject:
        return ""
    return " ".join(_SUBJECT_PREFIX.sub("", str(subject)).split())


def author_text(body: str | None, subject: str | None = None, *, kind: str = "email") -> AuthorText:
    """The author's own new text of a unit (see module docstring) and its cleaned subject.

    `kind` says whether mail reply rules apply (reply headers, signatures): mails and CRM e-mail messages get them,
    Jira/Confluence/CRM notes only lose quotes, markup blocks and non-prose lines.
    """
    text = (body or "").replace("\r\n", "\n").replace("\r", "\n")
    text = _WIKI_QUOTE.sub("\n", text)
    text = _GITHUB_DIFF.sub(f"\n{DIFF}\n", _GITHUB_REPLY_NOTE.sub("", text))
    for pattern in (_FENCE, _WIKI_CODE, _HTML_PRE):
        text = pattern.sub(f"\n{CODE}\n", text)
    lines = [line for line in text.split("\n") if not _BOILERPLATE.match(line.strip())]
    if kind.lower() in MAIL_KINDS:
        stripped = strip_reply("\n".join(lines))
        lines = stripped.split("\n")
    lines = [line for line in _drop_quotes(lines) if not _RULE_LINE.match(line)]
    lines = _drop_repeated_paragraphs([line.rstrip() for line in _collapse(lines)])
    prose = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    prose = re.sub(r"[ \t]+", " ", prose)
    return AuthorText(prose, clean_subject(subject))


def prose_only(prepared: str) -> str:
    """The prepared text without its markers: what NER reads (offsets are not kept)."""
    return re.sub("|".join(map(re.escape, MARKERS)), " ", prepared)
