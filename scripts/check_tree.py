"""Tree rules ruff cannot express: no module over 400 lines (outside sample/), and no test without an assertion.

A test asserts when its body (or a helper it calls from this file, followed transitively) holds an `assert`, a
`pytest.raises`/`pytest.fail`/`pytest.warns` or calls a helper named `assert_*`/`expect_*` from anywhere.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400
SKIP = {".venv", "sample", ".git", "node_modules", "build"}


def python_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if not SKIP & set(p.relative_to(ROOT).parts))


def too_long(paths: list[Path]) -> list[str]:
    out = []
    for p in paths:
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out.append(f"{p.relative_to(ROOT)}: {n} lines (limit {MAX_LINES}); split it by what it holds")
    return out


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            names.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


def _asserts_directly(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Assert):
            return True
    return any(
        name in {"raises", "fail", "warns"} or name.startswith(("assert_", "expect_")) for name in _called_names(node)
    )


def tests_without_assertion(paths: list[Path]) -> list[str]:
    out = []
    for p in paths:
        rel = p.relative_to(ROOT)
        if rel.parts[0] != "tests" or not p.name.startswith("test_"):
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"), filename=str(p))
        funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        asserting = {name for name, f in funcs.items() if _asserts_directly(f)}
        changed = True
        while changed:  # a helper of this file that calls an asserting helper asserts too
            changed = False
            for name, f in funcs.items():
                if name not in asserting and _called_names(f) & asserting:
                    asserting.add(name)
                    changed = True
        out += [
            f"{rel}:{f.lineno}: {name} asserts nothing"
            for name, f in funcs.items()
            if name.startswith("test_") and name not in asserting
        ]
    return out


def main() -> int:
    paths = python_files()
    problems = too_long(paths) + tests_without_assertion(paths)
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
