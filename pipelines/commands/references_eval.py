"""`graphfeed references eval`: build each labelled corpus file's episodes as `graphfeed preview` does, pick the
labelled ones by source key and score their references against the gold ones (transforms/reference_eval.py).

An episode that today's build no longer produces, or whose content differs from the labelled text, is warned about
and still scored (missing: every gold reference a miss), so a figure never silently drops a unit.
"""

import sys
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from transforms.reference_eval import EvalReport, Gold, score
from transforms.reference_labels import LABEL_KINDS, LabelledEpisode, content_sha256
from transforms.references import ReferenceConfig, extract_references


class EvalResult(NamedTuple):
    report: EvalReport
    missing: int  # labelled episodes today's build does not produce
    drifted: int  # ... whose content is not the labelled text
    metadata_only: int  # attachments and thread Message-IDs of the record its content does not name


def _metadata_name(ref_id: str) -> str | None:
    """What the text would show of a reference the record's metadata can carry: a file's name, a Message-ID."""
    if ref_id.startswith("attachment:name:"):
        return ref_id.removeprefix("attachment:name:").rsplit("/", 1)[-1]  # scoped: <issue or thread>/<file>
    if ref_id.startswith("email:"):
        return ref_id.rsplit(":", 1)[-1]
    return None


def _text_reference_ids(episode, unnamed: list[int], config: ReferenceConfig) -> tuple[list[str], dict[str, str]]:
    """The episode's reference ids without the record's attachments and thread Message-IDs (In-Reply-To, References)
    its content does not name (metadata, not text: the labels cover the content only), and the names of attachments
    known by content hash."""
    config = config.model_copy(update={"ner": False})
    names = {
        ref.id: ref.text for ref in extract_references("", attachments=episode.metadata.attachments, config=config)
    }
    ids = []
    content = episode.content.casefold()
    for ref_id in episode.references:
        named = names.get(ref_id) or _metadata_name(ref_id)
        # the content is NFKC-normalised; a file name may be stored decomposed (macOS NFD Hangul)
        if named is not None and unicodedata.normalize("NFKC", named).casefold() not in content:
            unnamed[0] += 1
            continue
        ids.append(ref_id)
    return ids, names


def build_file(source: str, path: Path, classifier, config) -> dict[str, object]:
    """Episodes of one corpus file by source key, built by `graphfeed preview`'s code path."""
    from pipelines.commands.preview import export_reader, preview_episodes, with_known_projects

    def failure(item) -> None:
        print(f"FAILURE {item.describe()}", file=sys.stderr)

    reader = export_reader(source, [str(path)])
    config = with_known_projects(config, source, reader)
    with preview_episodes(reader, classifier, config, on_failure=failure) as (unique, _):
        return {episode.metadata.source_key: episode for episode in unique}


def evaluate(
    units: Sequence[LabelledEpisode],
    corpus: Path,
    *,
    warn: Callable[[str], None],
    build: Callable[[str, Path], dict[str, object]] | None = None,
    reference_config: ReferenceConfig | None = None,
) -> EvalResult:
    """Score `units` against the episodes `build(source, path)` makes of their corpus files (default: preview's)."""
    if build is None:
        from flow import settings
        from pipelines.resources import episode_config, intent_model

        classifier = intent_model().classifier(settings.home())
        config = episode_config().episode_settings()
        reference_config = config.references

        def build(source: str, path: Path) -> dict[str, object]:
            return build_file(source, path, classifier, config)

    by_file: dict[tuple[str, str], list[LabelledEpisode]] = defaultdict(list)
    for unit in units:
        by_file[(unit.source, unit.corpus_file)].append(unit)
    scored = []
    missing = drifted = 0
    unnamed = [0]
    attachment_names: dict[str, str] = {}
    for (source, corpus_file), file_units in sorted(by_file.items()):
        path = corpus / corpus_file
        if path.exists():
            episodes = build(source, path)
        else:
            warn(f"{path}: corpus file missing; its {len(file_units)} labelled episode(s) score as all misses")
            episodes = {}
        for unit in file_units:
            gold = [Gold(r.kind, r.value, r.text, r.product) for r in unit.references]
            episode = episodes.get(unit.source_key)
            if episode is None:
                if path.exists():
                    warn(f"{unit.uid}: today's build has no episode with this source key (scored as all misses)")
                missing += 1
                scored.append((unit.uid, gold, []))
                continue
            if content_sha256(episode.content) != unit.content_sha256:
                warn(f"{unit.uid}: content differs from the labelled text (text drift); scored anyway")
                drifted += 1
            ids, names = _text_reference_ids(episode, unnamed, reference_config or ReferenceConfig())
            attachment_names.update(names)
            scored.append((unit.uid, gold, ids))
    report = score(scored, LABEL_KINDS, attachment_names)
    return EvalResult(report, missing, drifted, unnamed[0])
