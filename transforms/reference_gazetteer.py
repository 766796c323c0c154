"""Parties and Jira projects the export itself names, learned while episodes are built: people from mail headers
and Jira/Confluence/Salesforce user objects (a record's actor and participants carry display names and addresses),
organisations from the mail domains of human senders and from Salesforce Account records, Jira projects from the
issue URLs (`.../browse/MNG-6296`) any record's text carries, so a bare `MNG-6300` in a later mail counts.

What is learned becomes ReferenceConfig.name_map entries (`name -> person:<name>` / `org:<name>`) and
jira_project_keys, which the extractor uses three ways: an NER candidate that is a known party is kept at confidence
1.0 with the party's kind; a known multi-word name the model missed is found by a token scan
(reference_names.known_names); a handle (`[~jdoe]`, `@jdoe`) that is a known person's mail local part becomes that
person (kept as "@jdoe", which NER never reads). The user's own name_map always wins.
"""

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from ground.records import Actor, SourceRecord
from ground.source_traits import SourceTraits, traits_of
from transforms.name_check import generic_name, list_entries, load_stop_names
from transforms.reference_ids import org_ref_id
from transforms.reference_model import ReferenceConfig, _fold

DOMAINS_FILE = Path(__file__).resolve().parents[1] / "data" / "references" / "stop_names_mail_domains.txt"
_NAME_WORD = re.compile(r"^[^\W\d_][^\W\d_'’.-]*(?:[-'’][^\W\d_]+)*\.?$")
_PARENTHESISED = re.compile(r"\s*[(\[][^)\]]*[)\]]\s*")
_HANDLE = re.compile(r"^[a-z][a-z0-9._-]{2,39}$")
_NO_ORG_TLDS = frozenset({"invalid", "example", "test", "local", "localhost", "internal", "lan"})
_SECOND_LEVEL = frozenset({"co", "com", "ac", "org", "net", "gov", "edu", "ne", "or", "go"})
HANDLE_PREFIX = "@"  # name_map keys for handles: "@jdoe" -> person:..., so NER's "Jdoe" never matches one
_PERSON_KINDS = frozenset({"contact", "user", "lead"})
# A Jira issue URL anywhere in the export names a project: its keys count in every later text (issue 28 pattern 7).
_BROWSE_URL = re.compile(r"https?://[^\s/]+(?:/[^\s/]+)*/browse/([A-Z][A-Z0-9_]{1,9})-[1-9]\d{0,6}(?![A-Za-z0-9_-])")
_ORG_KINDS = frozenset({"account"})


@lru_cache(maxsize=1)
def _no_org_domains() -> frozenset[str]:
    return frozenset(entry.lower() for entry in list_entries(DOMAINS_FILE, "the mail domain stop list"))


def person_name(name: str | None) -> str | None:
    """A display name that is a person's full name ("Jan Vennemann"), cleaned ("Example User (Unlicensed)" ->
    "Example User"), else None: one word, an address, a bot, a role, generic words."""
    if not name or "@" in name:
        return None
    cleaned = " ".join(_PARENTHESISED.sub(" ", name).replace('"', " ").split())
    words = cleaned.split()
    if not 2 <= len(words) <= 4 or not all(_NAME_WORD.match(w) and w[0].isupper() for w in words):
        return None
    stop = load_stop_names()
    if cleaned.casefold() in stop or any(w.casefold() in stop for w in words):
        return None
    return None if generic_name(cleaned, "PERSON", "") else cleaned


def organisation_name(name: str | None) -> str | None:
    """An account name as an organisation name: letters, no digits (test fixtures like "Test 123")."""
    cleaned = " ".join((name or "").split())
    if len(cleaned) < 2 or any(ch.isdigit() for ch in cleaned) or not cleaned[0].isupper():
        return None
    return cleaned


def domain_organisation(address: str | None) -> str | None:
    """The organisation label of a mail domain (`dev@maven.apache.org` -> "Apache"), none for free-mail providers,
    reserved/test domains and bare hosts."""
    if not address or "@" not in address:
        return None
    return host_organisation(address.rsplit("@", 1)[1])


def host_organisation(host: str) -> str | None:
    """The organisation label of a host or mail domain ("www.microsoft.com" -> "Microsoft"), as domain_organisation."""
    domain = host.strip().strip(">").lower()
    labels = [label for label in domain.split(".") if label]
    if len(labels) < 2 or labels[-1] in _NO_ORG_TLDS:
        return None
    stop = _no_org_domains()
    if any(".".join(labels[i:]) in stop for i in range(len(labels) - 1)):
        return None
    i = -3 if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL else -2
    label = labels[i]
    if not label.isalpha() or len(label) < 3 or label in _SECOND_LEVEL or label in load_stop_names():
        return None  # "linux.org" names an operating system, "com.ro" nothing
    return label[0].upper() + label[1:]


class KnownParties:
    """Names learned from the records seen so far (insertion order kept, so the result is deterministic)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # name or handle -> canonical id
        self.projects: dict[str, None] = {}  # Jira project keys the export's issue URLs name
        self._config: tuple[ReferenceConfig, int, int, ReferenceConfig] | None = None

    def _add(self, name: str, ref: str) -> None:
        self.names.setdefault(name, ref)

    def _actor(self, actor: Actor) -> None:
        if actor.type != "human":
            return
        name = person_name(actor.name)
        email = actor.email or (actor.id if "@" in actor.id else None)
        if name:
            ref = f"person:{_fold(name)}"
            self._add(name, ref)
            local = email.rsplit("@", 1)[0].lower() if email else ""
            if _HANDLE.match(local) and "." not in local.strip("."):  # "jvennemann", not "jan.vennemann" (no handle)
                self._add(HANDLE_PREFIX + local, ref)  # only a mention ([~jvennemann], @jvennemann) reads it
        org = domain_organisation(email)
        if org:
            self._add(org, org_ref_id(org))

    def learn(self, records: Iterable[SourceRecord], traits: Mapping[str, SourceTraits]) -> None:
        """The parties the records' headers name, and the titles of party records where the source says its party
        records are titled by name (traits: source -> SourceTraits)."""
        for record in records:
            for key in _BROWSE_URL.findall(record.body) if "/browse/" in record.body else ():
                self.projects.setdefault(key, None)
            self._actor(record.actor)
            for participant in record.participants:
                self._actor(participant.actor)
            if traits_of(traits, record.source).party_titles:
                kind = record.kind.casefold()
                if kind in _ORG_KINDS and (org := organisation_name(record.title)):
                    self._add(org, org_ref_id(org))
                elif kind in _PERSON_KINDS and (person := person_name(record.title)):
                    self._add(person, f"person:{_fold(person)}")

    def config(self, base: ReferenceConfig) -> ReferenceConfig:
        """`base` with the learned names under its own name_map (the user's entries win); the same object while
        nothing new was learned, so the extractor's prepared lookups are reused."""
        if not self.names and not self.projects:
            return base
        if self._config and self._config[:3] == (base, len(self.names), len(self.projects)):
            return self._config[3]
        merged = {**self.names, **base.name_map}
        keys = list(dict.fromkeys([*base.jira_project_keys, *self.projects]))
        config = base.model_copy(update={"name_map": merged, "jira_project_keys": keys})
        self._config = (base, len(self.names), len(self.projects), config)
        return config
