"""Reference extraction: which issues, pages, records, messages, files, parties, dates and amounts a text names.

Every reference gets a canonical id that is the same whichever system mentions it, so the graph links a Jira
comment, an e-mail and a Salesforce note that talk about the same thing. Rules (regexes on the raw text, with
character offsets) find the machine ids, dates, amounts and versions; spaCy NER (English only) people and organisations.

Rules that are not obvious (measured in notes/nlp.md §3.5):
* ASCII-only character classes and look-arounds: Python's `\\w`/`\\b` match CJK letters (`工单ABC-123` missed).
* Jira keys are validated, because `UTF-8`, `COVID-19` and `ISO-9001` have the same shape:
  - `jira_project_keys` set: a bare key counts only if its project is listed;
  - `jira_project_keys` empty: a bare key counts only if its project also appears in a Jira issue URL in the same
    text (`.../browse/SALES-1` makes `SALES-7` acceptable); otherwise bare keys are dropped.
  - either way, a key the text marks as an issue counts ("[KEY-1] Title", "see KEY-1": reference_ids.marked_issue_key).
  Keys inside Jira URLs always count (when `jira_base_urls` is set, only URLs under those bases are Jira URLs).
* Salesforce 18-char ids must pass their checksum; 15-char ids must look like ids (known prefix shape, a digit,
  a letter) and are converted to 18 chars, so both spellings give one id.
* Jira keys of known projects count anywhere: configured, or learned from the Jira export of the same deployment
  (connectors/jira/project_keys.py; flow/project_keys.py persists them so mail read later knows them too).
* Overlaps: a span belongs to the first rule that claims it, in this order: URL, Message-ID, e-mail address,
  known attachment name, bracketed file name, bare file name, Jira key, Salesforce id, money, date, a party the
  export knows (reference_gazetteer.py), a name written as a domain ("MySurvey.com"), version (reference_versions.py).
  NER entities that overlap any rule span are dropped (the small model tags ids as CARDINAL and SaaS names as GPE).
* NER reads only the English segments of a text (transforms/language.segments), and its names pass the checks of
  transforms/name_check.py (generic words, unexpanded acronyms, stop lists with reasons). A name written with its
  legal form ("Deutsche Telekom AG") is an organisation in any Latin-script segment (reference_orgs.py, which also
  turns NER entities into references); a version never claims it.
* Dates come from transforms/text_dates.py only (absolute, year-less, relative: against the record's day).
* Code (transforms/code_spans.py: fences, {code}/{noformat}, diffs, stack traces, logs) yields only MACHINE_KINDS: a
  name, date, amount or version there is an identifier or a timestamp; a kind added later is masked too.
* A file known only by its name gets an id per `attachment_scope` (issue or thread): `.log` on two issues is two files.

Offsets refer to the text as given; pass `transforms.text.normalise(text)` so fullwidth forms are folded first.

This module assembles the references; the parts live in reference_model.py (Reference, ReferenceConfig),
reference_ids.py (URLs, Message-IDs, addresses, file names), reference_values.py (money, dates) and reference_versions.py.
"""

import datetime as dt
import re
from collections.abc import MutableMapping, Sequence
from typing import NamedTuple

from ground.identity import salesforce_id18, salesforce_ref_id
from ground.records import Attachment
from transforms import ner, reference_addressing, reference_names, reference_orgs, reference_versions
from transforms.code_spans import code_spans, inside
from transforms.reference_files import attached_in_text, strip_connectors
from transforms.reference_ids import (
    _BRACKET_PAIRS,
    _BRACKETED,
    _EMAIL,
    _FILE_BRACKETED,
    _PATH_LIKE_FILE,
    _URL,
    _bare_file_names,
    _classify_url,
    _looks_like_message_id,
    _trim_url,
    attachment_name_id,
    domain_names,
    file_markup,
    fragment_name,
    marked_issue_key,
    message_ref_id,
    name_pattern,
    normalise_url,
    truncated_url,
)
from transforms.reference_model import Reference, ReferenceConfig, ReferenceKind, _fold, _mapped, _prepare, _Prepared
from transforms.reference_spans import _Candidate, _claim, _Spans
from transforms.reference_values import (
    _MONEY_PREFIX,
    _MONEY_SUFFIX,
    _money,
    format_amount,
    may_name_money,
    parse_amount,
    text_dates,
)

# The public entry: callers import these from here (the parts live in reference_model, reference_ids, reference_values).
__all__ = [
    "Reference",
    "ReferenceConfig",
    "ReferenceKind",
    "extract_references",
    "extract_references_batch",
    "format_amount",
    "message_ref_id",
    "normalise_url",
    "parse_amount",
]

_QUOTES = frozenset('"“‘')
# Kinds a code region may hold: ids a machine wrote. Everything else (names, dates, money, versions, kinds added
# later) is dropped inside code.
MACHINE_KINDS: frozenset[str] = frozenset(
    {"url", "jira_issue", "email_address", "email_message", "salesforce_record", "confluence_page"}
)


def _attachment_id(attachment: Attachment, prepared: _Prepared, scope: str | None) -> str:
    if attachment.sha256:
        return f"attachment:sha256:{attachment.sha256.lower().removeprefix('sha256:')}"
    return _mapped(attachment.name, prepared) or attachment_name_id(attachment.name, scope)


def _file_id(name: str, by_name: dict[str, Attachment], prepared: _Prepared, scope: str | None) -> str:
    attachment = by_name.get(_fold(name))
    if attachment is not None:
        return _attachment_id(attachment, prepared, scope)
    return _mapped(name, prepared) or attachment_name_id(name, scope)


def _basename(name: str) -> str:
    return re.split(r"[/\\]", name)[-1].strip()


def _rule_candidates(
    text: str,
    language: str,
    attachments: Sequence[Attachment],
    prepared: _Prepared,
    reference_date: dt.date | None,
    scope: str | None,
) -> list[list[_Candidate]]:
    """Candidates per rule, in priority order (see module docstring)."""
    urls, msgids, addresses, known_files, bracketed, bare, keys, sf_ids, money, dates = ([] for _ in range(10))
    url_projects: set[str] = set()

    for m in _URL.finditer(text) if "://" in text else ():
        url = _trim_url(m.group())
        if truncated_url(text, m.end()):
            urls.append(_Candidate(m.start(), m.end(), "url", None))
            continue
        classified = _classify_url(url, prepared)
        urls.append(_Candidate(m.start(), m.start() + len(url), *(classified[:2] if classified else ("url", None))))
        if classified and classified[2]:
            url_projects.add(classified[2])

    for m in _BRACKETED.finditer(text):
        local, domain = m.group(1), m.group(2)
        if _looks_like_message_id(text, m.start(), local, domain):
            msgids.append(_Candidate(m.start(), m.end(), "email_message", message_ref_id(m.group())))
    for m in _EMAIL.finditer(text) if "@" in text else ():
        address = m.group().strip(".")
        if re.search(r"[A-Za-z]{2,}$", address):
            addresses.append(
                _Candidate(m.start(), m.start() + len(address), "email_address", f"email_address:{address.lower()}")
            )

    by_name: dict[str, Attachment] = {}
    for attachment in attachments:
        name = _basename(attachment.name)
        if name:
            by_name.setdefault(_fold(name), attachment)
    for attachment in attachments:
        name = _basename(attachment.name)
        if len(name) < 3:
            continue
        pattern = rf"(?<![A-Za-z0-9_.-]){name_pattern(name)}(?![A-Za-z0-9])"
        for m in re.finditer(pattern, text, re.I):
            known_files.append(
                _Candidate(m.start(), m.end(), "attachment", _attachment_id(attachment, prepared, scope))
            )

    for start, end, name in file_markup(text):
        file_id = _file_id(_basename(name), by_name, prepared, scope) if name else None
        bracketed.append(_Candidate(start, end, "attachment", file_id))

    for m in _FILE_BRACKETED.finditer(text):
        if _BRACKET_PAIRS.get(m.group(1)) == m.group(3):
            name = _basename(m.group(2))  # "/images/logo.png" -> logo.png
            start = m.end(2) - len(name)
            # a quoted string is a file handed over only as a bare name is (reference_files): "No such file: x.png"
            # and `url: "my file.png"` quote a message or a literal; CJK title brackets (《报价单.xlsx》) name a document
            handed = m.group(1) not in _QUOTES or _fold(name) in by_name or attached_in_text(text, m.start(), m.end())
            file_id = _file_id(name, by_name, prepared, scope) if handed else None
            bracketed.append(_Candidate(start, start + len(name), "attachment", file_id))
    for found_start, found_end in _bare_file_names(text):
        name, removed = strip_connectors(text[found_start:found_end])
        if name and not name.startswith("."):
            start = found_start + removed
            # `tiapp.xml`, `config.json`, `build.log`, `x.tar.gz` in prose are project files, not attachments,
            # unless the record carries an attachment of that name: claimed (no NER on them), no reference.
            # "PM.png", "5.30.02.png": the tail of a timestamped name with spaces; claimed, no reference.
            # Any other bare name needs the line to attach or show it (reference_files.attached_in_text).
            known = _fold(name) in by_name
            path_like = (
                _PATH_LIKE_FILE.search(name) is not None
                or fragment_name(text, start, name)
                or not attached_in_text(text, start, found_end)
            )
            bare.append(
                _Candidate(
                    start,
                    found_end,
                    "attachment",
                    _file_id(name, by_name, prepared, scope) if known or not path_like else None,
                )
            )

    for m in re.finditer(r"(?<![A-Za-z0-9_-])[A-Z][A-Z0-9_]{1,9}-[1-9]\d{0,6}(?![A-Za-z0-9_-])", text):
        project = m.group().rsplit("-", 1)[0]
        allowed = project in prepared.project_keys or project in url_projects or marked_issue_key(text, *m.span())
        keys.append(_Candidate(m.start(), m.end(), "jira_issue", f"jira:issue:{m.group()}" if allowed else None))

    for m in re.finditer(r"(?<![A-Za-z0-9])[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?(?![A-Za-z0-9])", text):
        id18 = salesforce_id18(m.group())
        if id18:
            sf_ids.append(_Candidate(m.start(), m.end(), "salesforce_record", salesforce_ref_id(id18)))

    for pattern in (_MONEY_PREFIX, _MONEY_SUFFIX) if may_name_money(text) else ():
        for m in pattern.finditer(text):
            ref = _money(m, language)
            if ref:
                money.append(_Candidate(m.start(), m.end(), "money", ref))

    for start, end, ref in text_dates(text, language, reference_date):
        dates.append(_Candidate(start, end, "date", ref))

    return [urls, msgids, addresses, known_files, bracketed, bare, keys, sf_ids, money, dates]


class _Rules(NamedTuple):
    claimed: list[_Candidate]
    spans: _Spans
    code: list[tuple[int, int]]  # transforms.code_spans: only MACHINE_KINDS count inside
    companies: list[ner.Entity]  # names with their legal form (reference_orgs), read in any Latin-script segment


def _rules(
    text: str,
    language: str,
    attachments: Sequence[Attachment],
    prepared: _Prepared,
    reference_date: dt.date | None,
    scope: str | None,
) -> _Rules:
    candidates = _rule_candidates(text, language, attachments, prepared, reference_date, scope) if text else []
    if text:  # then known parties, names written as a domain, then versions: a date, URL or id keeps its span
        candidates.append(
            [
                _Candidate(a, b, "person" if ref.startswith("person:") else "organization", ref)
                for a, b, ref in reference_addressing.party_names(text, prepared.parties, prepared.given)
            ]
        )
        candidates.append([_Candidate(a, b, "organization", ref) for a, b, ref in domain_names(text)])
        names = reference_addressing.full_names(text, language)  # where no NER model reads
        candidates.append([_Candidate(a, b, "person", f"person:{_fold(name)}") for a, b, name in names])
    companies = reference_orgs.written_organisations(text) if text else []
    if text:  # a company keeps its span from a version ("Telekom AG Niederlassung 3" is no product release)
        versions = reference_versions.find_versions(text)
        candidates.append(
            [
                _Candidate(v.start, v.end, "version", v.id)
                for v in versions
                if not any(v.start < c.end and c.start < v.end for c in companies)
            ]
        )
    claimed, spans = _claim(candidates)
    return _Rules(claimed, spans, code_spans(text) if text else [], companies)


def _assemble(
    text: str,
    attachments: Sequence[Attachment],
    message_ids: Sequence[str],
    prepared: _Prepared,
    rules: _Rules,
    entities: Sequence[ner.Entity],
    config: ReferenceConfig,
    scope: str | None,
    title_end: int,
) -> list[Reference]:
    found = [
        Reference(kind=c.kind, id=c.id, text=text[c.start : c.end], start=c.start, end=c.end)
        for c in rules.claimed
        if c.id
    ]
    for mention in reference_names.mentions(text, rules.spans.overlaps, reference_names.stop_list(config)):
        # a handle is no name: only a known party (a learned "@handle" or the user's map) makes it a person
        mapped = _mapped("@" + mention.text, prepared) or _mapped(mention.text, prepared)
        if mapped:
            found.append(Reference(kind="person", id=mapped, text=mention.text, start=mention.start, end=mention.end))
        elif written := reference_names.written_name(text, mention):
            name, confidence = written
            person = f"person:{_fold(name.text)}"
            found.append(
                Reference(
                    kind="person", id=person, text=name.text, start=name.start, end=name.end, confidence=confidence
                )
            )
    found += reference_orgs.entity_references(entities, found, rules.spans.overlaps, prepared, text, config, title_end)
    if rules.code:
        found = [
            r
            for r in found
            if r.kind in MACHINE_KINDS or r.start is None or not inside(rules.code, r.start, r.end or r.start)
        ]
    found.sort(key=lambda r: (r.start, r.end, r.kind, r.id))

    for attachment in attachments:
        found.append(Reference(kind="attachment", id=_attachment_id(attachment, prepared, scope), text=attachment.name))
    for message_id in message_ids:
        ref = message_ref_id(message_id)
        if ref:
            found.append(Reference(kind="email_message", id=ref, text=message_id.strip()))

    seen: set[str] = set()
    unique = []
    for ref in found:
        if ref.id not in seen:
            seen.add(ref.id)
            unique.append(ref)
    return unique


_DEFAULT_CONFIG = ReferenceConfig()


def extract_references(
    text: str,
    *,
    language: str = "en",
    attachments: Sequence[Attachment] = (),
    message_ids: Sequence[str] = (),
    config: ReferenceConfig = _DEFAULT_CONFIG,
    reference_date: dt.date | None = None,
    attachment_scope: str | None = None,
    title_end: int = 0,
) -> list[Reference]:
    """References in `text` plus the given attachments and Message-IDs, in text order (metadata after),
    de-duplicated by id (the first, i.e. the one with offsets, wins).

    `reference_date` (the record's day) resolves dates without a year (the closest such date) and relative dates
    ("tomorrow", "next week", "by Friday"); without it only the text's own single year completes a date, and relative
    dates are skipped. `attachment_scope` (the issue or thread) makes ids of files known only by name per scope.
    The first `title_end` characters are the record's title: a model name there needs the body too (reference_orgs).
    NER reads the text with every rule span, code token and path blanked out.
    """
    return extract_references_batch(
        [text],
        [language],
        attachments=[attachments],
        message_ids=[message_ids],
        config=config,
        reference_dates=[reference_date],
        attachment_scopes=[attachment_scope],
        title_ends=[title_end],
    )[0]


def extract_references_batch(
    texts: Sequence[str],
    languages: Sequence[str],
    *,
    attachments: Sequence[Sequence[Attachment]] | None = None,
    message_ids: Sequence[Sequence[str]] | None = None,
    config: ReferenceConfig = _DEFAULT_CONFIG,
    reference_dates: Sequence[dt.date | None] | None = None,
    known_entities: MutableMapping[str, list[ner.Entity]] | None = None,
    attachment_scopes: Sequence[str | None] | None = None,
    title_ends: Sequence[int] | None = None,
) -> list[list[Reference]]:
    """`extract_references` for many texts; English NER runs through nlp.pipe. Result i belongs to texts[i].
    `known_entities` keeps NER results by text across calls (ner.entities_batch)."""
    if len(languages) != len(texts):
        raise ValueError("texts and languages must have the same length")
    texts = [t or "" for t in texts]
    n = len(texts)
    files, ids, scopes = attachments or [()] * n, message_ids or [()] * n, attachment_scopes or [None] * n
    days, titles = reference_dates or [None] * n, title_ends or [0] * n
    prepared = _prepare(config)
    rules = [_rules(text, languages[i], files[i], prepared, days[i], scopes[i]) for i, text in enumerate(texts)]
    entities: list[Sequence[ner.Entity]] = [() for _ in texts]
    if config.ner:
        english = [i for i, (t, lang) in enumerate(zip(texts, languages)) if lang == "en" and t.strip()]
        views = (reference_names.ner_text(texts[i], rules[i].spans.starts, rules[i].spans.ends, "en") for i in english)
        for i, found in zip(english, ner.entities_batch(views, known_entities)):
            entities[i] = found
        entities = [reference_orgs.merge(rules[i].companies, found) for i, found in enumerate(entities)]
    return [
        _assemble(text, files[i], ids[i], prepared, rules[i], entities[i], config, scopes[i], titles[i])
        for i, text in enumerate(texts)
    ]
