"""Mail questions asked of two code trees over the same synthetic mails: how many answering facts each puts in its top
5 and whether the first hit answers (issue 34: message-envelope facts without a vector of their own, before/after).

usage: python bench/mail_answers.py --main-tree <checkout> [--n 300]
Each tree writes n mails of bench/synthetic_mail.py into a fresh embedded FalkorDB (one subprocess per tree, its code
first on the path) and asks the same questions; this process compares. A question's answer is checked by its shape
("Who emailed <person>?": a SENT_TO fact naming them as recipient, ...), not by a hand-made list.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKS = [
    (re.compile(r"Who emailed (.*)\?"), lambda m, n, f: n == "SENT_TO" and f"emailed {m[1]} " in f),
    (re.compile(r"Who got the mail about the (.*)\?"), lambda m, n, f: n == "SENT_TO" and f"'{m[1]}'" in f),
    (
        re.compile(r"What did (.*) send about (.*)\?"),
        lambda m, n, f: n in ("SENT", "SENT_TO") and f.startswith(m[1]) and f"'{m[2]}'" in f,
    ),
    (re.compile(r"Where does (.*) work\?"), lambda m, n, f: n == "WORKS_AT" and f.startswith(m[1] + " ")),
]


def questions() -> list[str]:
    from synthetic_mail import FIRST, LAST, TOPICS

    return (
        [f"Who got the mail about the {t}?" for t in TOPICS[:4]]
        + [f"Who emailed {f} {last}?" for f, last in zip(FIRST[:4], LAST[:4])]
        + [f"What did {f} {last} send about {t}?" for f, last, t in zip(FIRST[4:8], LAST[4:8], TOPICS[4:8])]
        + [f"Where does {f} {last} work?" for f, last in zip(FIRST[8:12], LAST[6:10])]
    )


def ask(home: Path, n: int) -> dict[str, list[list[str]]]:
    """In the subprocess: write the mails, ask every question, top 5 as (relation, fact)."""
    import asyncio

    from synthetic_mail import synthetic_episodes

    from connectors.registry import fact_extractor
    from graph.config import GraphConfig
    from graph.read.search import search_facts
    from graph.write.writer import GraphWriter

    async def go() -> dict[str, list[list[str]]]:
        episodes = synthetic_episodes(n, "g1", seed=7)
        async with GraphWriter(GraphConfig(home=home), extractor=fact_extractor()) as writer:
            await writer.write_batches([episodes[i : i + 100] for i in range(0, n, 100)])
            out = {}
            for question in questions():
                hits = await search_facts(writer, question, group_id="g1", limit=5)
                out[question] = [[h.name, h.fact] for h in hits]
            return out

    return asyncio.run(go())


def run_tree(tree: Path, n: int) -> dict[str, list[list[str]]]:
    home = Path(tempfile.mkdtemp(prefix="gfma-"))
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{HERE}"}
    code = f"import json, sys; sys.path[:0] = [{str(tree)!r}, {str(HERE)!r}]; import mail_answers as m; "
    code += f"print(json.dumps(m.ask(__import__('pathlib').Path({str(home)!r}), {n})))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=HERE)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def score(question: str, hits: list[list[str]]) -> tuple[bool, int]:
    for pattern, check in CHECKS:
        m = pattern.match(question)
        if m:
            found = [check(m, name, fact) for name, fact in hits]
            return bool(found and found[0]), sum(found)
    raise ValueError(f"no check for {question!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main-tree", required=True, help="a checkout measured as 'before'")
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    before, after = run_tree(Path(args.main_tree).resolve(), args.n), run_tree(HERE.parent, args.n)
    totals = [0, 0, 0, 0]
    print(f"{args.n} synthetic mails, FalkorDB embedded; first hit answers / answering facts in the top 5")
    for question in questions():
        (b1, b5), (a1, a5) = score(question, before[question]), score(question, after[question])
        totals = [totals[0] + b1, totals[1] + b5, totals[2] + a1, totals[3] + a5]
        print(f"  {question:<45} before {b1!s:<5} {b5}   after {a1!s:<5} {a5}")
    print(f"  total: first hit {totals[0]} -> {totals[2]}, answering facts in top 5 {totals[1]} -> {totals[3]}")


if __name__ == "__main__":
    main()
