"""Time on hostile text: long tokens without spaces, against the patterns they replaced (baseline, same run).

Inputs are generated: a word of N letters (language noise regex), N underscores (spaCy tokenizer before NER), N "{"
(Jira wiki monospace span), at N and 4N. Quadratic code takes ~16x as long at 4N, linear code ~4x. Usage:
    .venv/bin/python bench/hostile_text_bench.py [--size 4000]
"""

import argparse
import re
import time

from connectors.jira import wiki as jira_wiki
from transforms import language, ner

OLD_NOISE = re.compile(r"https?://[!-~]+|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+|[A-Za-z0-9_.-]*\d[A-Za-z0-9_.-]*")
OLD_MONO = re.compile(r"\{\{(.+?)\}\}")


def seconds(fn, text: str) -> float:
    start = time.perf_counter()
    fn(text)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=4000)
    n = parser.parse_args().size
    nlp = ner.load()
    rows = [
        ("language noise regex", "a", lambda t: OLD_NOISE.sub(" ", t), lambda t: language._NOISE.sub(" ", t)),
        ("NER tokenizer input", "_", nlp, lambda t: nlp(ner._bounded(t))),
        ("wiki monospace span", "{", lambda t: OLD_MONO.sub("", t), lambda t: jira_wiki._MONO.sub("", t)),
    ]
    print(f"{'what':<22} {'N chars':>8} {'old s':>9} {'new s':>9} {'old/new':>8}   growth N->4N old, new")
    for name, char, old, new in rows:
        small = [seconds(old, char * n), seconds(new, char * n)]
        large = [seconds(old, char * 4 * n), seconds(new, char * 4 * n)]
        for size, (o, w) in ((n, small), (4 * n, large)):
            print(f"{name:<22} {size:>8} {o:>9.4f} {w:>9.4f} {o / max(w, 1e-9):>8.1f}x", end="")
            print(
                f"   {large[0] / max(small[0], 1e-9):.1f}x, {large[1] / max(small[1], 1e-9):.1f}x"
                if size == 4 * n
                else ""
            )


if __name__ == "__main__":
    main()
