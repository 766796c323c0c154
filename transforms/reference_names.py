"""People and organisations in prose: what NER may read, @-mentions, and the name check (transforms/name_check.py).

NER reads a view of the text in which every rule span (URLs, ids, addresses, files, money, dates), code-like token
(`Ti.UI.createWindow`, `foo_bar`, `a/b/c`, `Foo::bar`), block marker and backtick span is blanked with spaces, so
offsets still refer to the text and a stack frame can never become a person.
"""

import re
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from transforms.author_text import MARKERS
from transforms.language import foreign_spans
from transforms.name_check import (
    acronym,
    common_word,
    load_stop_names,
    name_confidence,
    organisation_shaped,
    proper_word,
)

__all__ = ["label_of", "mentions", "name_confidence", "ner_text", "ner_view", "organisation_shaped", "stop_list"]

_CODE_TOKEN = re.compile(
    r"`[^`\n]*`|\{\{[^}\n]*\}\}|\S*(?:[A-Za-z0-9][._/\\:#]+[A-Za-z0-9_(]|::|\(\)|->|=>)\S*|"
    r"\S*[A-Za-z]\d+[A-Za-z]\S*|\S*_\S+|" + "|".join(map(re.escape, MARKERS))
)
# [~jsmith] (Jira wiki) and @jsmith (rendered Jira, GitHub); not e-mail addresses (claimed first) or @annotations.
_MENTION = re.compile(r"\[~(?:accountid:)?([A-Za-z0-9][\w.@-]{1,60})\]|(?<![\w.@/])@([A-Za-z][\w.-]{0,38}[A-Za-z0-9])")
_ANNOTATIONS = frozenset(
    {
        "override",
        "param",
        "return",
        "returns",
        "deprecated",
        "test",
        "since",
        "author",
        "see",
        "throws",
        "nullable",
        "nonnull",
        "suppresswarnings",
        "inject",
        "autowired",
        "before",
        "after",
        "version",
        "link",
        "code",
        "here",
        "all",
        "channel",
        "everyone",
    }
)


class Mention(NamedTuple):
    text: str
    start: int
    end: int


def ner_view(text: str, starts: Sequence[int], ends: Sequence[int]) -> str:
    """`text` with the given spans and code-like tokens replaced by spaces (same length, same offsets)."""
    chars = list(text)
    for start, end in zip(starts, ends):
        chars[start:end] = " " * (end - start)
    view = "".join(chars)
    return _CODE_TOKEN.sub(lambda m: " " * len(m.group()), view)


def label_of(name: str, label: str) -> str:
    """The model's PERSON/ORG, corrected where the name's shape says otherwise: "Alpine Dairy" is a business; a lone
    given name tagged ORG (typically a possessive, "as per Martin's confirmation") is a person."""
    if label == "PERSON" and organisation_shaped(name):
        return "ORG"
    if label == "ORG" and " " not in name and not acronym(name) and proper_word(name) and not common_word(name):
        return "PERSON"
    return label


def ner_text(text: str, starts: Sequence[int], ends: Sequence[int], language: str = "en") -> str:
    """`ner_view` with every segment not in English blanked too (transforms.language.segments): English NER reads
    only where its model's language holds, so the Latin UI labels of a Korean page are never names."""
    foreign = foreign_spans(text, "en", default=language)
    if not foreign:
        return ner_view(text, starts, ends)
    return ner_view(text, [*starts, *(a for a, _ in foreign)], [*ends, *(b for _, b in foreign)])


def mentions(text: str, claimed: Callable[[int, int], bool], stop: frozenset[str] = frozenset()) -> Iterator[Mention]:
    for m in _MENTION.finditer(text):
        group = 1 if m.group(1) else 2
        name = m.group(group)
        if name.casefold() in _ANNOTATIONS or name.casefold() in stop or claimed(m.start(), m.end()):
            continue
        yield Mention(name, m.start(group), m.end(group))


def stop_list(config) -> frozenset[str]:
    return load_stop_names(tuple(config.stop_names_files), tuple(config.stop_names))
