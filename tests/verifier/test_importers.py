"""Importers: law.go.kr shapes and their gotchas, idempotence, and hostile files that change nothing."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import func, select
from verifier_samples import CASE_LIST_XML, EXTRA_JSONL, STATUTE_BODY_XML

from verifier.database import Database
from verifier.errors import ImportFileError, MalformedFileError, UnsafeXmlError, UnsupportedShapeError
from verifier.importers import import_file, import_paths
from verifier.importers.jsonl import read_jsonl
from verifier.importers.lawgo import read_json, read_xml
from verifier.importers.records import ActRecord, AliasRecord, ArticleRecord, CaseRecord, SkippedRow
from verifier.models import ACTS, ALIASES, ARTICLES, CASES, COVERAGE, PROVISIONS
from verifier.names import parse_date

TABLES = {"acts": ACTS, "aliases": ALIASES, "articles": ARTICLES, "provisions": PROVISIONS, "cases": CASES,
          "coverage": COVERAGE}


def row_counts(database: Database) -> dict[str, int]:
    with database.engine.connect() as connection:
        return {name: connection.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in TABLES.items()}


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


# --- shapes, read without a database -----------------------------------------------------------

def test_statute_body_skips_headings_pads_the_law_id_and_reads_provisions(tmp_path: Path) -> None:
    records = list(read_xml(write(tmp_path, "body.xml", STATUTE_BODY_XML)))
    act, *articles = records
    assert isinstance(act, ActRecord) and act.law_id == "001706" and act.name == "민법" and act.replaces_articles
    assert all(isinstance(a, ArticleRecord) for a in articles)
    by_label = {(a.number, a.branch): a for a in articles}
    assert sorted(by_label) == [(3, 2), (5, 0), (23, 0), (750, 0)]  # the 전문 row for 750 is not an article
    assert by_label[3, 2].status == "삭제" and by_label[3, 2].amended_on == dt.date(2020, 1, 1)
    assert by_label[5, 0].status == "이동" and by_label[5, 0].moved_to == "5의2"
    keys = {(p.paragraph, p.item, p.item_branch, p.subitem) for p in by_label[23, 0].provisions}
    assert keys == {(1, 0, 0, ""), (1, 1, 0, ""), (1, 3, 2, ""), (1, 3, 2, "가"), (2, 0, 0, "")}


SHAPES = [
    ("JSON single hit is an object", "one.json",
     '{"PrecSearch": {"prec": {"판례일련번호": "9", "사건번호": "2020다1", "선고일자": "20200102", '
     '"법원명": "대법원", "판결유형": "판결"}}}', 1),
    ("헌재 JSON rows are Detc", "detc.json",
     '{"DetcSearch": {"Detc": {"헌재결정례일련번호": "1", "사건번호": "2019헌바1", "종국일자": "20200102"}}}', 1),
    ("empty JSON body means no record", "empty.json", "{}", 0),
    ("no-record XML answer", "none.xml", "<Law>일치하는 판례가 없습니다. 판례명을 확인하여 주십시오.</Law>", 0),
    ("empty XML body means no record", "none_body.xml", "<PrecService></PrecService>", 0),
    ("alias table", "aliases.json", '{"민소법": "민사소송법", "헌법": "대한민국헌법"}', 2),
]


@pytest.mark.parametrize(("name", "content", "records"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_shape_yields_records(tmp_path: Path, name: str, content: str, records: int) -> None:
    reader = read_xml if name.endswith(".xml") else read_json
    found = list(reader(write(tmp_path, name, content)))
    assert len(found) == records
    assert all(isinstance(r, CaseRecord | AliasRecord) for r in found)


def test_detc_date_is_the_final_decision_date(tmp_path: Path) -> None:
    [record] = read_json(write(tmp_path, "d.json", SHAPES[1][2]))
    assert isinstance(record, CaseRecord)
    assert (record.court, record.decided_on, record.delivery, record.disposition) == (
        "헌법재판소", dt.date(2020, 1, 2), "선고", "결정")


def test_case_rows_normalise_courts_read_full_bench_and_skip_unusable_numbers(tmp_path: Path) -> None:
    records = list(read_xml(write(tmp_path, "list.xml", CASE_LIST_XML)))
    cases = [r for r in records if isinstance(r, CaseRecord)]
    assert [c.court for c in cases] == ["대법원", "대법원", "서울고등법원"]
    assert [c.panel for c in cases] == [None, "전원합의체", None]
    assert [c.disposition for c in cases] == ["판결", "판결", "판결"]
    [skipped] = [r for r in records if isinstance(r, SkippedRow)]
    assert skipped.position == "row 4" and "수원지방법원-2025-구단-10915" in skipped.reason


@pytest.mark.parametrize(("court", "number", "disposition", "delivery"), [
    ("헌법재판소", "2017헌마1281", "결정", "선고"),  # the 헌법재판소 pronounces every decision, as law.go.kr says
    ("헌재", "2017헌마1281", "결정", "선고"),
    ("대법원", "2022마6489", "결정", "자"),
    ("대법원", "2024도4202", "판결", "선고"),
], ids=["constitutional-court", "its-short-name", "supreme-court-decision", "supreme-court-judgment"])
def test_jsonl_case_without_delivery_takes_the_courts_usual_one(tmp_path: Path, court: str, number: str,
                                                                 disposition: str, delivery: str) -> None:
    line = (f'{{"type": "case", "court": "{court}", "date": "2020-03-26", "case_number": "{number}", '
            f'"disposition": "{disposition}"}}')
    [record] = read_jsonl(write(tmp_path, "case.jsonl", line))
    assert isinstance(record, CaseRecord) and record.delivery == delivery


DATES = [("compact", "20240711", dt.date(2024, 7, 11)), ("iso", "2024-07-11", dt.date(2024, 7, 11)),
         ("dotted", "2024. 7. 11.", dt.date(2024, 7, 11)), ("단기 year", "42890525", dt.date(1956, 5, 25)),
         ("impossible day", "20230230", None), ("not a date", "soon", None),
         ("two-digit year", "95.3.3", None), ("three-digit year", "995-03-03", None)]


@pytest.mark.parametrize(("text", "expected"), [d[1:] for d in DATES], ids=[d[0] for d in DATES])
def test_parse_date(text: str, expected: dt.date | None) -> None:
    assert parse_date(text) == expected


# --- hostile and malformed files ----------------------------------------------------------------

BILLION_LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
                            for i in range(1, 10))
                  + ']>\n<LawSearch><law>&lol9;</law></LawSearch>')
EXTERNAL_ENTITY = ('<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
                   "<PrecSearch><prec><사건명>&xxe;</사건명></prec></PrecSearch>")
HOSTILE: list[tuple[str, str, str | bytes, type[ImportFileError], str]] = [
    ("billion laughs", "laughs.xml", BILLION_LAUGHS, UnsafeXmlError, "line 2, column 1"),
    ("external entity", "xxe.xml", EXTERNAL_ENTITY, UnsafeXmlError, "line 2, column 1"),
    ("external DTD after a comment", "dtd.xml", '<?xml version="1.0"?>\n<!-- 목록 -->\n'
     '<!DOCTYPE x SYSTEM "http://example.invalid/x.dtd">\n<LawSearch/>', UnsafeXmlError, "line 3, column 1"),
    ("EUC-KR declared", "declared.xml", '<?xml version="1.0" encoding="EUC-KR"?>\n<PrecSearch/>'.encode("euc-kr"),
     MalformedFileError, "encoding 'EUC-KR'"),
    ("UTF-16 XML", "utf16.xml", "<LawSearch/>".encode("utf-16"), MalformedFileError, "byte 1"),
    ("truncated XML", "cut.xml", CASE_LIST_XML[: len(CASE_LIST_XML) * 2 // 3], MalformedFileError, "line"),
    ("EUC-KR bytes declared UTF-8", "euckr.xml", CASE_LIST_XML.encode("euc-kr"), MalformedFileError, "line 3"),
    ("huge text node", "huge.xml", "<PrecSearch><prec><사건명>" + "가" * (4 * 1024 * 1024 + 1)
     + "</사건명></prec></PrecSearch>", MalformedFileError, "<사건명> of row 1"),
    ("not a law.go.kr root", "page.xml", "<html><body>오류</body></html>", UnsupportedShapeError, "line 1"),
    ("truncated JSON", "cut.json", '{"PrecSearch": {"prec": [', MalformedFileError, "line 1, column"),
    ("CP949 JSON", "cp949.json", '{"PrecSearch": {"prec": {"사건명": "사기"}}}'.encode("cp949"),
     MalformedFileError, "byte"),
    ("unknown JSON object", "other.json", '{"results": [1, 2]}', UnsupportedShapeError, "line 1"),
    ("JSON array", "array.json", "[1, 2]", UnsupportedShapeError, "line 1"),
    ("empty file", "empty.xml", "", MalformedFileError, "empty file"),
    ("unknown suffix", "notes.txt", "민법 제750조", UnsupportedShapeError, "'.txt'"),
    ("JSONL bad line", "bad.jsonl", '{"type": "act", "law_id": "1", "name": "새법"}\n{"type": "act", "law_id":',
     MalformedFileError, "line 2"),
    ("JSONL unknown type", "type.jsonl", '{"type": "act", "law_id": "1", "name": "새법"}\n{"type": "tweet"}',
     UnsupportedShapeError, "line 2"),
    ("JSONL missing field", "field.jsonl", '{"type": "case", "court": "대법원", "case_number": "2020다1"}',
     UnsupportedShapeError, "line 1"),
]


@pytest.mark.parametrize(("name", "content", "error", "position"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_bad_file_fails_with_file_and_position_and_changes_nothing(
        loaded: Database, tmp_path: Path, name: str, content: str | bytes, error: type[ImportFileError],
        position: str) -> None:
    before = row_counts(loaded)
    path = write(tmp_path, name, content)
    with pytest.raises(error) as raised:
        import_file(loaded, path)
    assert raised.value.path == path and str(path) in str(raised.value)
    assert position in str(raised.value)
    assert row_counts(loaded) == before


def test_a_file_failing_halfway_leaves_its_first_rows_unwritten(database: Database, tmp_path: Path) -> None:
    rows = "\n".join(
        f'{{"type": "case", "court": "대법원", "date": "2020-01-02", "case_number": "2019다{n}", "disposition": "판결"}}'
        for n in range(1, 3001))  # more than one batch is written before the bad line
    with pytest.raises(MalformedFileError, match="line 3001"):
        import_file(database, write(tmp_path, "half.jsonl", rows + "\n{broken"))
    assert row_counts(database)["cases"] == 0


def test_missing_path_is_a_clear_error(database: Database, tmp_path: Path) -> None:
    with pytest.raises(ImportFileError, match="nothing at that path"):
        import_paths(database, [tmp_path / "absent"])


# --- idempotence --------------------------------------------------------------------------------

def test_reimport_updates_and_never_duplicates(database: Database, sample_dir: Path, tmp_path: Path) -> None:
    import_paths(database, [sample_dir])
    first = row_counts(database)
    assert first["acts"] == 4 and first["cases"] == 8 and first["articles"] == 6
    import_paths(database, [sample_dir])
    assert row_counts(database) == first
    renamed = CASE_LIST_XML.replace("<사건명>사기</사건명>", "<사건명>사기(변경)</사건명>")
    import_file(database, write(tmp_path, "prec.xml", renamed))
    with database.engine.connect() as connection:
        titles = connection.execute(select(CASES.c.title).where(CASES.c.case_serial == 4202)).scalars().all()
    assert titles == ["사기(변경)"] and row_counts(database) == first


def test_a_newer_body_replaces_the_acts_articles(database: Database, tmp_path: Path) -> None:
    import_file(database, write(tmp_path, "v1.xml", STATUTE_BODY_XML))
    newer = STATUTE_BODY_XML.replace("<조문번호>750</조문번호><조문여부>조문</조문여부>",
                                     "<조문번호>751</조문번호><조문여부>조문</조문여부>")
    import_file(database, write(tmp_path, "v2.xml", newer))
    with database.engine.connect() as connection:
        numbers = connection.execute(select(ARTICLES.c.number).order_by(ARTICLES.c.number)).scalars().all()
    assert numbers == [3, 5, 23, 751]


def test_jsonl_format_documented_example_reads(tmp_path: Path) -> None:
    records = list(read_jsonl(write(tmp_path, "extra.jsonl", EXTRA_JSONL)))
    kinds = [type(r).__name__ for r in records]
    assert kinds == ["ActRecord", "ArticleRecord", "ActRecord", "ArticleRecord", "AliasRecord", "CaseRecord",
                     "CaseRecord", "CoverageRecord"]


# A statute body's odd rows are refused, not skipped (a body replaces the act's articles, so a row
# skipped is an article deleted): test_import_guards.py holds those.
ODD_ROWS = [
    ("case row as text", "row.json", '{"PrecSearch": {"prec": ["text"]}}', 0),
    ("empty case body element", "body.xml", "<PrecService><a/></PrecService>", 1),
]


@pytest.mark.parametrize(("name", "content", "skipped"), [o[1:] for o in ODD_ROWS], ids=[o[0] for o in ODD_ROWS])
def test_rows_of_the_wrong_type_are_skipped_not_crashed_on(database: Database, tmp_path: Path, name: str,
                                                          content: str, skipped: int) -> None:
    report = import_file(database, write(tmp_path, name, content))
    assert len(report.skipped) == skipped and report.counts["articles"] == 0 and report.counts["cases"] == 0


BAD_JSONL_FIELDS = [("mst as text", '{"type": "act", "law_id": "1", "name": "가법", "mst": "abc"}', "mst"),
                    ("name as a list", '{"type": "act", "law_id": "1", "name": ["가법"]}', "name"),
                    ("articles as text", '{"type": "act", "law_id": "1", "name": "가법", "articles": "x"}', "articles"),
                    ("court as a number", '{"type": "case", "court": 5, "date": "2020-01-01", '
                     '"case_number": "2020다1", "disposition": "판결"}', "court")]


@pytest.mark.parametrize(("line", "named"), [b[1:] for b in BAD_JSONL_FIELDS], ids=[b[0] for b in BAD_JSONL_FIELDS])
def test_jsonl_fields_of_the_wrong_type_are_refused_with_the_line(tmp_path: Path, line: str, named: str) -> None:
    with pytest.raises(UnsupportedShapeError, match=f"line 1: expected .*{named}"):
        list(read_jsonl(write(tmp_path, "bad.jsonl", line)))
