"""Dump candidate mail units (one per message) from the shared corpus to a JSONL scratch file for labelling.

Why stdlib: the labelling units must be reproducible from the corpus bytes alone. One unit per distinct
Message-ID; the same message exported by several archive systems (listsao / mailarchivesao / mboxvm) is kept
once (first file in the order below wins), and so is a body repeated under another id. Messages with no
author text (empty, or only quoted lines) are skipped. raw_text is the decoded text/plain body exactly
(quotes and signatures included); HTML-only bodies are reduced to text with the stdlib parser.

usage: python scripts/intent_units/extract_mail.py [CORPUS_DIR] > scratch.jsonl
"""

import email
import email.policy
import hashlib
import html.parser
import json
import mailbox
import re
import sys
from pathlib import Path

MBOXES = [
    "email/ponymail_asf/corpus/maven-dev-2017-11-mailarchivesao.mbox",
    "email/ponymail_asf/corpus/maven-dev-2017-11-listsao.mbox",
    "email/ponymail_asf/corpus/maven-dev-2017-11-mboxvm.mbox",
    "email/ponymail_asf/corpus/asterix-dev-201709-mailarchivesao.mbox",
    "email/ponymail_asf/corpus/httpd-users-200606-part.mbox",
    "email/ponymail_asf/corpus/httpd-users-4950.mbox",
    "email/ponymail_asf/corpus/httpd-dev-28428.mbox",
    "email/ponymail_asf/corpus/ponymail-dev-1079-mailarchiesao.mbox",
    "email/ponymail_asf/corpus/ponymail-dev-1080-mailarchiesao.mbox",
    "email/ponymail_asf/corpus/commits_ponymail_apache_org_2016-06.mbox",
    "email/ponymail_asf/corpus/tomcat-ancient-boundary.mbox",
    "email/ponymail_asf/corpus/nexus-html-only.mbox",
    "email/mime4j_testmsgs/test-1/mbox.rlug",
]
SINGLE_DIRS = ["email/talon/fixtures/standard_replies", "email/talon/fixtures/signature"]


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "p", "div", "tr", "li"):
            self.parts.append("\n")


def html_to_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    return re.sub(r"\n{3,}", "\n\n", "".join(parser.parts)).strip()


def body_text(msg) -> str | None:
    plain = html_part = None
    for part in msg.walk() if msg.is_multipart() else [msg]:
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype not in ("text/plain", "text/html"):
            continue
        try:
            text = part.get_content()
        except (LookupError, UnicodeError, AssertionError):
            payload = part.get_payload(decode=True) or b""
            text = payload.decode("utf-8", "replace")
        if ctype == "text/plain" and plain is None:
            plain = text
        elif ctype == "text/html" and html_part is None:
            html_part = text
    if plain is not None and plain.strip():
        return plain
    if html_part is not None:
        return html_to_text(html_part)
    return None


def own_text(body: str) -> str:
    """Lines not quoted ('>') — only used to decide that a message has author text at all."""
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">")).strip()


_PREFIX = re.compile(r"^\s*(((re|fwd?|fw|aw|wg|sv)\s*:)|\[(result|canceled|cancelled|\d+/\d+)\])\s*", re.I)
_GITHUB = re.compile(r"github\.com/([\w.-]+/[\w.-]+)/(?:pull|issues)/(\d+)")


def thread_key(msg, body: str) -> str:
    """Normalised subject (reply/vote-result prefixes off), so a root and its replies share one thread even
    where an archive dropped the References header; GitHub notifications thread by repository and PR number."""
    subject = " ".join(str(msg.get("Subject") or "").split())
    if subject.lower().startswith("[github]"):
        match = _GITHUB.search(body)
        if match:
            return f"github:{match.group(1)}#{match.group(2)}"
    previous = None
    while previous != subject:
        previous, subject = subject, _PREFIX.sub("", subject)
    if subject:
        return "subject:" + subject.lower()
    return str(msg.get("Message-ID") or "").strip()


def units(corpus: Path):
    seen_ids: set[str] = set()
    seen_bodies: set[str] = set()
    for rel in MBOXES:
        for msg in mailbox.mbox(
            corpus / rel, factory=lambda f: email.message_from_binary_file(f, policy=email.policy.default)
        ):
            yield from _unit(rel, msg, seen_ids, seen_bodies)
    for rel_dir in SINGLE_DIRS:
        for path in sorted((corpus / rel_dir).rglob("*")):
            if path.is_file() and path.suffix in (".eml", ".txt", ""):
                msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                yield from _unit(str(path.relative_to(corpus)), msg, seen_ids, seen_bodies)


def _unit(rel, msg, seen_ids, seen_bodies):
    mid = str(msg.get("Message-ID") or "").strip()
    body = body_text(msg)
    if body is None or not own_text(body):
        return
    digest = hashlib.sha256(own_text(body).encode()).hexdigest()
    if (mid and mid in seen_ids) or digest in seen_bodies:
        return
    seen_ids.add(mid)
    seen_bodies.add(digest)
    key = mid or Path(rel).name
    yield {
        "uid": f"mail:{rel}#{key}",
        "source_family": "mail",
        "corpus_file": rel,
        "source_key": key,
        "thread": thread_key(msg, body) or key,
        "subject": str(msg.get("Subject") or "") or None,
        "from": str(msg.get("From") or ""),
        "raw_text": body,
    }


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
    for unit in units(root):
        print(json.dumps(unit, ensure_ascii=False))
