"""The e-mail source as the pipeline and the transforms see it: exports only (no API, no settings of its own beyond the
archive limits every source shares), its facts and traits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic_settings import SettingsConfigDict

from connectors.email.api_reader import api_reader
from connectors.source_spec import SourceSettings, SourceSpec
from ground.source_traits import MentionKind, SourceTraits

if TYPE_CHECKING:
    from ground.contract import Reader
    from transforms.fact_extractors import SourceFacts

TRAITS = SourceTraits(
    name="email",
    intent_family="mail",
    reply_kinds=frozenset({"email"}),  # content without quoted replies and signatures
    author_text_kind="email",  # mail reply rules for every message
    thread_scoped_attachments=True,  # a file known by name belongs to its mail thread
    mention=MentionKind(label="Message", relation="MENTIONS_MESSAGE"),
)


class EmailSettings(SourceSettings):
    """GRAPHFEED_EMAIL_*: nothing yet (its export location is GRAPHFEED_EMAIL_EXPORTS, as for every source)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFEED_EMAIL_")


def export_reader(paths: Sequence[str | Path], s: EmailSettings) -> Reader:
    from connectors.archives import ArchiveLimits
    from connectors.email.export_reader import EmailExportReader

    return EmailExportReader(paths, archive_limits=ArchiveLimits.from_env())


def facts() -> SourceFacts:
    from connectors.email.facts import email_facts
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(email_facts, traits=TRAITS)


SPEC = SourceSpec(
    name="email", traits=TRAITS, settings=EmailSettings, export_reader=export_reader, api_reader=api_reader, facts=facts
)
