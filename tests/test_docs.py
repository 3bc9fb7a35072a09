"""The user docs stay inside the repository: relative links resolve to its files, and every oracle kind is
documented in docs/oracles.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from satori_ci.oracles.kinds import OracleKind

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_INLINE_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_LINK = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_EXTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")  # http:, https:, mailto:, ...


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code (links there are not links)."""
    return _CODE.sub("", _FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    prose = _prose(path.read_text(encoding="utf-8"))
    return _INLINE_LINK.findall(prose) + _REF_LINK.findall(prose)


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file (lower case, punctuation dropped, `-` for spaces)."""
    seen: dict[str, int] = {}
    out = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        out.add(slug if count == 0 else f"{slug}-{count}")
    return out


def test_the_docs_exist() -> None:
    assert (ROOT / "docs" / "oracles.md").is_file()
    assert len(DOCS) >= 2


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_point_at_files_of_the_repository(doc: Path) -> None:
    problems = []
    for target in _links(doc):
        if _EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        if ".." in Path(file_part).parts:
            problems.append(f"{target}: leaves the folder (`..`)")
            continue
        if file_part.startswith("/"):
            problems.append(f"{target}: absolute path")
            continue
        resolved = (doc.parent / file_part).resolve() if file_part else doc
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            problems.append(f"{target}: no such file in the repository")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            problems.append(f"{target}: no heading #{anchor} in {resolved.relative_to(ROOT).as_posix()}")
    assert not problems, f"{doc.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_docs_do_not_send_users_outside_the_clone() -> None:
    for doc in DOCS:
        assert "../shared/docs" not in doc.read_text(encoding="utf-8"), doc


def test_every_oracle_kind_is_documented() -> None:
    text = (ROOT / "docs" / "oracles.md").read_text(encoding="utf-8")
    missing = [kind.value for kind in OracleKind if f"`{kind.value}`" not in text]
    assert len(OracleKind) == 17
    assert not missing, f"docs/oracles.md does not describe {missing}"


def test_the_link_finder_sees_links() -> None:
    """Guard against a regex that finds nothing and so passes everything."""
    sample = ROOT / "README.md"
    assert "docs/oracles.md" in _links(sample)
