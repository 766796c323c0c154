"""The e-mail source as the pipeline and the transforms see it (one spec per source package)."""

from ground.source_traits import MentionKind, SourceTraits

TRAITS = SourceTraits(
    name="email",
    intent_family="mail",
    reply_kinds=frozenset({"email"}),  # content without quoted replies and signatures
    author_text_kind="email",  # mail reply rules for every message
    thread_scoped_attachments=True,  # a file known by name belongs to its mail thread
    mention=MentionKind(label="Message", relation="MENTIONS_MESSAGE"),
)
