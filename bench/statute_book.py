"""The real statute book as a grammar lexicon, read straight from the legalize-kr snapshot.

    from bench.statute_book import book_lexicon
    acts, former = book_lexicon()   # {name: [article labels]}, {구 name: [labels]}

Every file of `../shared/lawdata/legalize-kr-current.tar.xz` (the `kr/` tree: every act, decree and
rule in force) gives one entry: the name from the front matter's `제목`, the article labels from its
`##### 제N조` / `##### 제N조의M` headings, leaving out articles whose body is only `삭제 <…>`. A title
seen twice (the same act promulgated anew, e.g. 근로기준법 in force and 근로기준법 from 2027) keeps the
union of the articles. Files with no live article (별표 forms, a repealed act's `제0조`) give a name
with any article number (None), as the grammar admits for acts without an article list. Titles that
quote a name in 「」 are left out: the lexicon refuses brackets in a name.

구법 forms for generation: `구 ` before any name cites an earlier version, whose articles may be ones
the current version no longer has (`구 민법 제3조의2`), so each `구 NAME` admits the articles of its
act plus the ones deleted from it. Repealed acts are not in a snapshot of acts in force; their names
come from the deleted-article headings' acts only when present. This is a bench fixture, not the
verifier's importer (branch `book`): it reads what the grammar needs and nothing else.
"""

from __future__ import annotations

import functools
import random
import re
import tarfile
from pathlib import Path

from grammars.languages.articles import HEAD_SEPARATOR

BOOK = Path("/work/shared/lawdata/legalize-kr-current.tar.xz")
_TITLE = re.compile(r"^제목:\s*(.+?)\s*$", re.MULTILINE)
_ARTICLE = re.compile(r"^##### 제([1-9][0-9]{0,3})조(?:의([1-9][0-9]?))?[^\n]*\n+([^\n]*)", re.MULTILINE)
_DELETED = re.compile(r"^삭제\s*<")
# A title quoting a name (「대한민국 법원의 날」제정에 관한 규칙): the lexicon refuses it.
_UNCITABLE = re.compile(r"[「」]")


def _unquote(title: str) -> str:
    return title[1:-1] if len(title) > 1 and title[0] == title[-1] and title[0] in "'\"" else title


@functools.cache
def book_lexicon(path: Path = BOOK) -> tuple[dict[str, list[str] | None], dict[str, list[str] | None]]:
    """(acts in force, 구 forms): each `{name: sorted article labels or None for any}`."""
    live: dict[str, set[str]] = {}
    deleted: dict[str, set[str]] = {}
    with tarfile.open(path) as archive:
        for member in archive:
            if not member.isfile() or not member.name.endswith(".md"):
                continue
            text = archive.extractfile(member).read().decode()
            found = _TITLE.search(text)
            if found is None:
                continue
            name = " ".join(_unquote(found.group(1)).split())
            if _UNCITABLE.search(name):
                continue
            labels = live.setdefault(name, set())
            gone = deleted.setdefault(name, set())
            for article, branch, body in _ARTICLE.findall(text):
                label = f"{article}의{branch}" if branch else article
                (gone if _DELETED.match(body) else labels).add(label)
    acts = {name: sorted(labels) or None for name, labels in sorted(live.items())}
    former = {
        f"구 {name}": (sorted(labels | deleted[name]) if labels else None) for name, labels in sorted(live.items())
    }
    return acts, former


def full_book() -> dict[str, list[str] | None]:
    """Every act in force and every `구` form, one lexicon (what the generation grammar serves)."""
    acts, former = book_lexicon()
    return {**acts, **former}


def book_slice(count: int) -> dict[str, list[str] | None]:
    """The first `count` acts in force (by name), with their real article sets."""
    acts, _ = book_lexicon()
    return dict(list(acts.items())[:count])


def book_of(size: str) -> dict[str, list[str] | None]:
    """A bench size: `full` (`full_book`) or a count of acts (`book_slice`)."""
    return full_book() if size == "full" else book_slice(int(size))


def citations_of(lexicon: dict[str, list[str] | None], count: int, seed: int = 0) -> list[str]:
    """Real citations of the lexicon: an act, one of its articles, sometimes a paragraph."""
    rng = random.Random(seed)
    names = sorted(lexicon)
    out = []
    for _ in range(count):
        name = rng.choice(names)
        labels = lexicon[name] or ["1"]
        label = rng.choice(labels)
        article = label.replace("의", "조의") if "의" in label else label + "조"
        out.append(f"{name}{HEAD_SEPARATOR}{article}" + (" 제1항" if rng.random() < 0.5 else ""))
    return out
