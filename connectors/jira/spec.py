"""The Jira source as the pipeline and the transforms see it (one spec per source package)."""

from ground.source_traits import MentionKind, SourceTraits

TRAITS = SourceTraits(
    name="jira",
    intent_family="jira_description",
    intent_family_by_kind={"comment": "jira_comment"},
    thread_scoped_attachments=True,  # a file known by name belongs to its issue (the comments share it)
    issue_context=True,  # issue type and resolution are intent context (transforms/intent/context.py)
    names_project_keys=True,  # its records teach the run its project keys (flow/project_keys.py)
    mention=MentionKind(label="Issue", relation="MENTIONS_ISSUE"),
)
MENTIONS = {TRAITS.name: TRAITS.mention}  # its own namespace, for the entities its facts key by issue
