"""The Confluence source as the pipeline and the transforms see it (one spec per source package)."""

from ground.source_traits import MentionKind, SourceTraits

TRAITS = SourceTraits(
    name="confluence",
    intent_family="confluence",
    # attachments stay unscoped: connectors/confluence/facts.py writes its attachment entities by name alone
    mention=MentionKind(label="Document", relation="MENTIONS_DOCUMENT"),
)
MENTIONS = {TRAITS.name: TRAITS.mention}  # its own namespace, for the entities its facts key by page
