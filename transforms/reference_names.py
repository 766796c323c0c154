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
    SENTENCE_WORDS,
    acronym,
    common_word,
    load_stop_names,
    name_confidence,
    organisation_shaped,
    person_shaped,
    proper_word,
)

__all__ = ["label_of", "mentions", "name_confidence", "ner_text", "ner_view", "organisation_shaped", "stop_list"]

_CODE_TOKEN = re.compile(
    r"`[^`\n]*`|\{\{[^}\n]*\}\}|\S*(?:[A-Za-z0-9][._/\\:#]+[A-Za-z0-9_(]|::|\(\)|->|=>)\S*|"
    r"\S*[A-Za-z]\d+[A-Za-z]\S*|\S*_\S+|" + "|".join(map(re.escape, MARKERS))
)
# No name is this long; blanked first, because _CODE_TOKEN's \S* runs are quadratic in a token's length (a 100k-character
# subject: 61 s for 40k characters, tests/hostile/test_preview_tier.py).
_LONG_TOKEN = re.compile(r"\S{200,}")
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
    view = _LONG_TOKEN.sub(lambda m: " " * len(m.group()), "".join(chars))
    return _CODE_TOKEN.sub(lambda m: " " * len(m.group()), view)


_TOKEN = re.compile(r"[^\W\d_][\w'’.-]*")


def known_names(text: str, parties: dict[str, list[tuple[tuple[str, ...], str]]]) -> Iterator[tuple[int, int, str]]:
    """(start, end, id) of known multi-word parties written in `text` with a capital ("Jan Vennemann", "Acme Dairy").
    One pass over the tokens; a name is matched word by word, casefolded."""
    if not parties:
        return
    tokens = [_token(m) for m in _TOKEN.finditer(text)]
    i = 0
    while i < len(tokens):
        start, _, word = tokens[i]
        match = None
        if text[start].isupper():
            for words, ref in parties.get(word, ()):
                run = tokens[i : i + len(words)]
                if len(run) != len(words) or any(t[2] != w for t, w in zip(run, words)):
                    continue
                if len(words) == 1 and not _lone_name(text, tokens, i):
                    continue
                if all(text[a[1] : b[0]] == " " for a, b in zip(run, run[1:])):
                    match = (start, run[-1][1], ref, len(words))
                    break
        if match:
            yield match[0], match[1], match[2]
            i += match[3]
        else:
            i += 1


_POSSESSIVE = re.compile(r"['’]s$")


def _token(m: re.Match[str]) -> tuple[int, int, str]:
    """(start, end, casefolded word) without a final dot or possessive: "Quillsoft's" names Quillsoft."""
    word, end = m.group().rstrip("."), m.end()
    if _POSSESSIVE.search(word):
        word, end = word[:-2], m.start() + len(word) - 2
    return m.start(), end, word.casefold()


def _lone_name(text: str, tokens: list[tuple[int, int, str]], i: int) -> bool:
    """A one-word organisation ("Axway") stands alone: no capitalised word right before or after it (then it is part
    of a longer name, "Apache Maven"), and it is no dictionary word."""
    start, end, word = tokens[i]
    for j in (i - 1, i + 1):
        if 0 <= j < len(tokens):
            a, b, _ = tokens[j]
            gap = text[b:start] if j < i else text[end:a]
            if gap == " " and text[a].isupper():
                return False
    return not common_word(word)


def label_of(name: str, label: str, text: str = "", end: int = 0) -> str:
    """The model's PERSON/ORG, corrected where the name's shape says otherwise: "Alpine Dairy" is a business; a lone
    given name tagged ORG in a possessive ("as per Martin's confirmation", `end` where the name ends) is a person,
    and so is a given name and surname tagged ORG ("Lance Schuler")."""
    if label == "PERSON" and organisation_shaped(name):
        return "ORG"
    if label == "ORG" and person_shaped(name):
        return "PERSON"
    possessive = text[end : end + 2] in ("'s", "’s")
    if label == "ORG" and possessive and " " not in name and not acronym(name) and proper_word(name):
        return "PERSON" if not common_word(name) else label
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


_NEXT_NAME_WORD = re.compile(r" ([A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?![\w'’-])")


def written_name(text: str, mention: Mention) -> tuple[Mention, float] | None:
    """A handle written as the person's name ("@Gary", "@Alexander Baars": a capitalised word, then maybe the family
    name) is that name, with the confidence of an NER name of as many words; a login (`@jvennemann`) is None."""
    handle = mention.text
    if not (handle.isalpha() and handle[0].isupper() and handle[1:].islower() and len(handle) > 1):
        return None
    end = mention.end
    for count, word in enumerate(_NEXT_NAME_WORD.finditer(text, mention.end)):
        if count == 2 or word.start() != end or word.group(1).casefold() in SENTENCE_WORDS:
            break
        end = word.end()
    rest = end > mention.end
    name = text[mention.start : end]
    return Mention(name, mention.start, end), (0.9 if rest else 0.6)


def stop_list(config) -> frozenset[str]:
    return load_stop_names(tuple(config.stop_names_files), tuple(config.stop_names))
