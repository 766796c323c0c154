"""What generic transforms need to know about a source, declared by the source itself (its connectors/<source>/spec.py)
and handed to them by the caller: transforms never test a source's name, so a new source is one folder, not an edit
in every transform it passes through. Every field's default is "nothing special": a source that declares nothing is
read as plain prose.
"""

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

SYNTHETIC_FAMILY = "synthetic"  # the intent family of text no source declares (labelled synthetic units)


class MentionKind(BaseModel):
    """The node a reference id of a source's namespace (`jira:issue:NW-101`) names, and the edge that links to it."""

    model_config = ConfigDict(frozen=True)

    label: str = "Document"
    relation: str = "MENTIONS_DOCUMENT"
    # The id's next part names the node's label (`salesforce:Opportunity:006...` -> Opportunity, MENTIONS_OPPORTUNITY)
    typed: bool = False


class ClosingRule(BaseModel):
    """How a field record says a deal closed: its won flag, else (an export without the flag) its stage."""

    model_config = ConfigDict(frozen=True)

    flag_field: str
    stage_field: str
    won_stage: str  # compared case-insensitively


class SourceTraits(BaseModel):
    """A source's answers to the questions transforms ask of a record (by its kind)."""

    model_config = ConfigDict(frozen=True)

    name: str
    # Intent: the family a record's kind belongs to (per-family figures, the classifier's family feature)
    intent_family: str = SYNTHETIC_FAMILY
    intent_family_by_kind: Mapping[str, str] = Field(default_factory=dict)
    # Kinds whose body is prose an author wrote (reply and signature rules apply); None: every kind. The others are
    # field summaries the reader rendered from structured data, read as they are.
    prose_kinds: frozenset[str] | None = None
    # Kinds whose body loses quoted replies and signatures in the episode content (mails)
    reply_kinds: frozenset[str] = frozenset()
    # The author_text rules the dates-in-prose scan applies to every record of the source (None: the record's kind)
    author_text_kind: str | None = None
    # A file known only by its name belongs to the record's thread (issue, mail thread), not to the whole source
    thread_scoped_attachments: bool = False
    # Intent context tokens from the record's fields (transforms/intent/context.py: issue type, resolution)
    issue_context: bool = False
    # The records name the source's project keys (learned per run, flow/project_keys.py)
    names_project_keys: bool = False
    # The titles of its party records (CRM accounts, contacts, users) are the party's name: the gazetteer learns them
    party_titles: bool = False
    # Intent facts: kinds that are no one's writing (master data), and how a field record says a deal closed
    no_intent_kinds: frozenset[str] = frozenset()
    closing_rules: Mapping[str, ClosingRule] = Field(default_factory=dict)
    # Rendered field blocks in bodies (paragraphs starting so) that are not prose, except in these kinds' bodies
    field_block_prefixes: tuple[str, ...] = ()
    field_block_free_kinds: frozenset[str] = frozenset()
    # Kinds whose text states no dates (field records): no dates-in-prose facts
    no_prose_kinds: frozenset[str] = frozenset()
    # The node and edge of a reference id in this source's namespace (<name>:...)
    mention: MentionKind = MentionKind()

    def family(self, kind: str) -> str:
        return self.intent_family_by_kind.get((kind or "").lower(), self.intent_family)

    def is_prose(self, kind: str) -> bool:
        return self.prose_kinds is None or (kind or "").lower() in self.prose_kinds


def traits_of(traits: Mapping[str, SourceTraits], name: str) -> SourceTraits:
    """A source's traits from the lookup a caller passes; a source nobody declared is read as plain prose."""
    found = traits.get(name)
    return found if found is not None else SourceTraits(name=name)


def mention_kinds(traits: Mapping[str, SourceTraits]) -> dict[str, MentionKind]:
    """reference namespace (a source's name) -> the node a reference id in it names."""
    return {name: t.mention for name, t in traits.items()}
