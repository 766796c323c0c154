"""Running the date patterns of transforms/text_dates.py cheaply, with the same matches as `pattern.finditer(text)`.

Why: the name patterns are large case-insensitive alternations (months, weekdays in five languages) that the regex
engine tries at every word, ~1 ms per kB, and a pattern opening with a look-behind defeats its first-character skip.
Most texts name no month or weekday, so: a quick test for the words a pattern needs (C string methods), then the
pattern tried only at the token starts shortly before each such word; and look-behind patterns found through their
body (which skips to digits), each body match checked with the whole pattern.
"""

import re
from collections.abc import Iterator, Mapping, Sequence

_WORD = re.compile(r"[^\W\d_]+")
_WORD_START = re.compile(r"\b\w")
_CJK = re.compile(r"[\u3400-\u9fff]")
# The quick test: ASCII digits, punctuation and apostrophes become spaces, other punctuation is stripped from the
# ends of the split words. Only a yes/no: offsets come from the word regex afterwards.
_ASCII_NON_LETTERS = str.maketrans({c: " " for c in "0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\u2019"})
_PUNCT = "'’‘“”«»„…–—・、。，！？：；（）【】《》「」"
LEAD = 24  # the longest lead before a needed word a match may start with ("spätestens nächsten", "14th of")

Needs = frozenset[str] | str | None  # words (one of them), characters (one of them), or nothing: always run
Words = list[tuple[str, list[int]]]


class PatternScanner:
    def __init__(
        self,
        patterns: Sequence[tuple[str, re.Pattern[str]]],
        word_needs: Mapping[str, frozenset[str]],
        char_needs: Mapping[str, str],
        guard: str,
    ) -> None:
        """`word_needs`/`char_needs` by pattern kind; a CJK word pattern needs one of its own CJK characters;
        `guard` is the look-behind some patterns open with."""
        self.plan: dict[re.Pattern[str], Needs] = {}
        for kind, pattern in patterns:
            if kind in char_needs:
                self.plan[pattern] = char_needs[kind]
            elif _CJK.search(pattern.pattern):
                self.plan[pattern] = "".join(sorted(set(_CJK.findall(pattern.pattern))))
            else:
                self.plan[pattern] = word_needs.get(kind)
        self.all_words = frozenset().union(*(n for n in self.plan.values() if isinstance(n, frozenset)))
        self.body = {p: re.compile(p.pattern[len(guard) :], p.flags) for p in self.plan if p.pattern.startswith(guard)}

    def trigger_words(self, text: str) -> Words:
        """(lower-cased word, the token starts up to LEAD characters before it) for each occurrence of a needed
        word, in text order."""
        lowered = text.lower()
        if len(lowered) != len(text):  # a letter whose lower case is longer ("İ"): offsets would shift
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        if self.all_words.isdisjoint(w.strip(_PUNCT) for w in lowered.translate(_ASCII_NON_LETTERS).split()):
            return []
        out = []
        for m in _WORD.finditer(lowered):
            if m.group() in self.all_words:
                at = m.start()
                out.append((m.group(), [s.start() for s in _WORD_START.finditer(text, max(0, at - LEAD), at + 1)]))
        return out

    def scan(self, pattern: re.Pattern[str], text: str, words: Words) -> Iterator[re.Match[str]]:
        """pattern.finditer(text): every match of a word pattern holds one of its words and starts at a token."""
        needs = self.plan[pattern]
        if needs is None:
            yield from self._unguarded(pattern, text)
            return
        if isinstance(needs, str):
            if any(char in text for char in needs):
                yield from pattern.finditer(text)
            return
        end = -1
        for p in sorted({p for word, near in words if word in needs for p in near}):
            if p < end:
                continue
            m = pattern.match(text, p)
            if m is not None and m.end() > m.start():
                yield m
                end = m.end()

    def _unguarded(self, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
        body = self.body.get(pattern)
        if body is None:
            yield from pattern.finditer(text)
            return
        pos = 0
        while (found := body.search(text, pos)) is not None:
            m = pattern.match(text, found.start())
            if m is not None and m.end() > m.start():
                yield m
                pos = m.end()
            else:
                pos = found.start() + 1
