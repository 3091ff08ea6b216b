"""The compact bundle data/law ships: built by data/tools/build_statute_book.py from a legalize-kr
repository (here the real history fixture), read back by `citegen-admin import`."""

from __future__ import annotations

import datetime as dt
import importlib.util
import itertools
import json
import lzma
import operator
import tarfile
from pathlib import Path
from types import ModuleType

from legalize_history import REAL_HISTORY, build_legalize_repo
from sqlalchemy import func, select

from grammars import AmendmentNote, StatuteCitation
from verifier import Database, Verifier
from verifier.importers.book import import_book
from verifier.importers.history import fold, normalize, sort_key
from verifier.importers.legalize import parse_act
from verifier.models import SPANS, SUPPLEMENTS, VERSIONS

ROOT = Path(__file__).parents[2]
SHIPPED = ROOT / "data" / "law" / "statute-book.book.jsonl.xz"
TODAY = dt.date(2026, 12, 1)


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_statute_book", ROOT / "data/tools/build_statute_book.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _count(database: Database, table) -> int:
    with database.engine.connect() as connection:
        return connection.execute(select(func.count()).select_from(table)).scalar_one()


def test_built_bundle_holds_every_version_and_verifies_former_law(database: Database, tmp_path: Path) -> None:
    repo = build_legalize_repo(tmp_path / "repo")
    bundle = tmp_path / "book.book.jsonl.xz"
    _builder().build(repo, bundle, TODAY)
    report = import_book(database, bundle)
    assert report.skipped == [] and report.versions == 40  # every version of the fixture's history
    with Verifier(database, audit=False) as verifier:
        note = AmendmentNote("법률", 6626, "전부개정", True, dt.date(2002, 1, 26))
        noted = verifier.verify(StatuteCitation("민사소송법", 263, former=True, amendment=note), TODAY)
        assert noted.status == "verified", noted.detail
        repealed = verifier.verify(StatuteCitation("근로기준법", 27, former=True), TODAY)
        assert repealed.status == "verified", repealed.detail
        then = verifier.verify(StatuteCitation("근로기준법", 27, paragraph=1), dt.date(1990, 1, 1))
        assert then.status == "verified", then.detail
        deleted = verifier.verify(StatuteCitation("근로기준법", 35), TODAY)
        assert deleted.status == "outdated" and deleted.suggestion is not None
        now = verifier.verify(StatuteCitation("민사소송법", 1), TODAY)
        assert now.provision is not None and now.provision.text  # the version in force keeps its text
    with database.engine.connect() as connection:
        # spans ended by a version already in force: older text, dropped; their structure stays
        ended = select(SPANS.c.text, SPANS.c.structure).join(VERSIONS, (VERSIONS.c.act_id == SPANS.c.act_id) & (
            VERSIONS.c.sequence == SPANS.c.last + 1)).where(VERSIONS.c.effective_on <= TODAY)
        old = connection.execute(ended).all()
        supplements = connection.execute(select(SUPPLEMENTS.c.version_id, SUPPLEMENTS.c.heading,
                                                SUPPLEMENTS.c.text)).all()
    assert old and all(row.text is None for row in old) and any(row.structure for row in old)
    headings = [row.heading for row in supplements if row.text is None]
    assert len(headings) == len(set(headings))  # an older version names only the 부칙 it brought, once
    assert any(row.text for row in supplements)  # the version in force keeps its 부칙 with text


def test_shipped_bundle_lines_are_what_the_importer_reads(database: Database, tmp_path: Path) -> None:
    with lzma.open(SHIPPED, "rt", encoding="utf-8") as lines:
        head = list(itertools.islice(lines, 3))  # a slice: the file is tens of MB
    rows = [json.loads(line) for line in head]
    assert all(len(version) == 9 for row in rows for version in row["versions"])
    assert all(len(span) == 8 for row in rows for span in row["spans"])
    piece = tmp_path / "slice.book.jsonl.xz"
    piece.write_bytes(lzma.compress("".join(head).encode()))
    report = import_book(database, piece)
    assert report.skipped == [] and report.acts == 3
    assert _count(database, VERSIONS) == sum(len(row["versions"]) for row in rows)
    assert _count(database, SPANS) == sum(len(row["spans"]) for row in rows)


def test_normalize_refolds_versions_that_came_out_of_order_or_twice() -> None:
    with tarfile.open(REAL_HISTORY) as tar:
        entries = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        versions = [parse_act(tar.extractfile(f"versions/{commit}/{path}").read().decode(), f"{commit}:{path}")
                    for commit, _, path in entries if path == "kr/대한민국헌법/헌법.md"]
    ordered = sorted(versions, key=sort_key)
    expected = fold(ordered, 1, {})
    arrived = ordered[5:] + ordered[:5] + [ordered[2]]  # two files' worth in the wrong order, one MST twice
    got_versions, got_spans = normalize(arrived, fold(arrived, 1, {}))
    assert [version.mst for version in got_versions] == [version.mst for version in ordered]
    key = operator.attrgetter("number", "branch", "first", "last", "title", "deleted", "structure", "text")
    assert sorted(map(key, got_spans)) == sorted(map(key, expected))
    assert normalize(ordered, expected) == (ordered, expected)  # in order: unchanged
