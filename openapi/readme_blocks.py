"""Writes the fenced code blocks of one language of a README as one program.

    python3 readme_blocks.py README.md LANGUAGE OUT --allowed sh,python

OUT has as many lines as the README: each line of a LANGUAGE block where it
stands, every other line blank. So the blocks run in order as one program
(a later block uses what an earlier one defined), and a failure's line
number in OUT is the README's. Exits 2, writing nothing, when the README
has a block in a language outside `--allowed` (or none named): every block
of a client's README is run by openapi/test-clients.sh, none skipped.
"""

from __future__ import annotations

import argparse
import sys


def blocks(lines: list[str]) -> list[tuple[str, int, int]]:
    """(language, first line, end line) of each fenced block, 0-based,
    the fences excluded."""
    found = []
    opened: tuple[str, int] | None = None
    for number, line in enumerate(lines):
        if not line.startswith("```"):
            continue
        if opened is None:
            opened = (line[3:].strip(), number + 1)
        else:
            found.append((opened[0], opened[1], number))
            opened = None
    if opened is not None:
        raise SystemExit(f"a code block opened at line {opened[1]} is never closed")
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("readme")
    parser.add_argument("language")
    parser.add_argument("out")
    parser.add_argument("--allowed", required=True, help="comma-separated languages the README may use")
    arguments = parser.parse_args()
    allowed = set(arguments.allowed.split(","))
    with open(arguments.readme, encoding="utf-8") as readme:
        lines = readme.read().split("\n")
    found = blocks(lines)
    strangers = [(language, first) for language, first, _ in found if language not in allowed]
    if strangers:
        for language, first in strangers:
            print(
                f"{arguments.readme}:{first}: a block in {language or 'no language'}, which is not run "
                f"(the blocks run are {', '.join(sorted(allowed))})",
                file=sys.stderr,
            )
        return 2
    program = [""] * len(lines)
    for language, first, end in found:
        if language == arguments.language:
            program[first:end] = lines[first:end]
    with open(arguments.out, "w", encoding="utf-8") as out:
        out.write("\n".join(program))
    return 0


if __name__ == "__main__":
    sys.exit(main())
