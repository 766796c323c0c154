"""Token recall of real Confluence Cloud page folders through `graphfeed preview` (issue 12 reproduction).

    .venv/bin/python scripts/confluence_recall.py [CORPUS_DIR]

For every page folder holding a rendered page.html, runs `graphfeed preview --source confluence <folder>` and
prints the episodes, failures and the token recall of the page.html text in the best episode's content.
"""

import json
import subprocess
import sys
from pathlib import Path

from bs4 import BeautifulSoup

from transforms.fidelity import token_recall

REPO = Path(__file__).resolve().parents[1]
DEFAULT = REPO / ".." / "shared" / "corpus" / "confluence" / "querypie_cloud"


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    cli = Path(sys.executable).parent / "graphfeed"
    figures = []
    for folder in sorted(p for p in root.iterdir() if (p / "page.html").is_file()):
        source = BeautifulSoup((folder / "page.html").read_text(encoding="utf-8"), "html.parser").get_text(" ")
        out = subprocess.run(
            [str(cli), "preview", "--source", "confluence", str(folder)], capture_output=True, text=True, check=False
        )
        episodes = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
        failures = [line for line in out.stderr.splitlines() if line.startswith("FAILURE")]
        best = max((token_recall(source, e["content"]) for e in episodes), default=0.0)
        figures.append(best)
        print(f"{folder.name:>12}  episodes={len(episodes)}  failures={len(failures)}  recall={best:.3f}")
        for line in failures:
            print(f"{'':14}{line[:160]}")
    if figures:
        print(f"mean recall over {len(figures)} page folders: {sum(figures) / len(figures):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
