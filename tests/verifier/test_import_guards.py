"""Imports that cannot delete data by accident (issue 17): a body without the shape of a body, a
value out of bounds, a body that would shrink an act, a failure inside an act of the statute book;
and a re-import of the same source leaves a byte-identical snapshot."""

from __future__ import annotations

import hashlib
import io
import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.database import Database
from verifier.errors import (
    ImportFileError,
    InvalidValueError,
    MalformedFileError,
    ShrinkError,
    UnsupportedShapeError,
)
from verifier.importers import import_file, import_paths
from verifier.importers.snapshot import write_snapshot

runner = CliRunner()
ARTICLES = 60  # 민법 in small: 60 articles of 3 paragraphs each


def _units(count: int) -> list[dict[str, object]]:
    return [{"조문번호": str(number), "조문여부": "조문", "조문제목": f"제목{number}",
             "항": [{"항번호": mark} for mark in "①②③"]} for number in range(1, count + 1)]


def body_json(units: object = None, *, section: object = None, basic: object = None, drop: str | None = None) -> str:
    """A law.go.kr JSON body of 민법: `units` replaces its 조문단위, `section` the whole 조문, `drop`
    removes a top key."""
    body: dict[str, object] = {
        "기본정보": basic if basic is not None else {"법령ID": "001706", "법령명_한글": "민법", "법종구분": "법률",
                                                      "공포일자": "20240101", "시행일자": "20240101"},
        "조문": section if section is not None else {"조문단위": _units(ARTICLES) if units is None else units}}
    if drop:
        del body[drop]
    return json.dumps({"법령": body}, ensure_ascii=False)


def body_xml(units: str | None = None, *, articles: str | None = None) -> str:
    """The XML twin of `body_json`: `units` replaces the 조문단위 elements, `articles` the whole <조문>."""
    rows = "".join(f"<조문단위><조문번호>{n}</조문번호><조문여부>조문</조문여부><조문제목>제목{n}</조문제목>"
                   + "".join(f"<항><항번호>{mark}</항번호></항>" for mark in "①②③") + "</조문단위>"
                   for n in range(1, ARTICLES + 1))
    section = articles if articles is not None else f"<조문>{rows if units is None else units}</조문>"
    return ("<법령><기본정보><법령ID>001706</법령ID><법령명_한글>민법</법령명_한글><법종구분>법률</법종구분>"
            f"<공포일자>20240101</공포일자></기본정보>{section}</법령>")


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def snapshot(database: Database) -> bytes:
    buffer = io.BytesIO()
    write_snapshot(database, buffer)
    return buffer.getvalue()


@pytest.fixture
def civil_code(database: Database, tmp_path: Path) -> Database:
    """A database holding 민법 from a well-formed body (60 articles, 180 provisions)."""
    import_file(database, write(tmp_path, "minbeop.json", body_json()))
    return database


# --- bodies without the shape of a body ------------------------------------------------------------

MISSHAPEN = [
    ("JSON 조문 as a string", "x.json", body_json(section="없음"),
     "법령/조문", "expected an object with 조문단위, got a string"),
    ("JSON 조문 missing", "x.json", body_json(drop="조문"), "법령/조문", "expected an object with 조문단위, got none"),
    ("JSON junk rows", "x.json", body_json(["가", "나", "다"]), "법령/조문/조문단위[1]",
     "expected an object with 조문번호, got a string"),
    ("JSON junk row among real ones", "x.json", body_json([*_units(2), 7, *_units(3)]), "법령/조문/조문단위[3]",
     "expected an object with 조문번호, got a number"),
    ("JSON row without 조문번호", "x.json", body_json([{"조문제목": "x"}]), "법령/조문/조문단위[1]",
     "expected an object with 조문번호, got an object without 조문번호"),
    ("JSON 조문번호 past 9999", "x.json", body_json([{"조문번호": "123456", "조문여부": "조문"}]),
     "법령/조문/조문단위[1]/조문번호", "expected an article numbered 1–9999"),
    ("JSON no rows", "x.json", body_json([]), "법령/조문/조문단위", "expected at least one article, got none"),
    ("JSON 기본정보 as text", "x.json", body_json(basic="민법"), "법령/기본정보",
     "expected an object with 법령ID and 법령명_한글, got a string"),
    ("XML 조문 as text", "x.xml", body_xml(articles="<조문>없음</조문>"), "법령/조문/조문단위",
     "expected at least one article, got none"),
    ("XML 조문 missing", "x.xml", body_xml(articles=""), "법령/조문/조문단위",
     "expected at least one article, got none"),
    ("XML junk rows", "x.xml", body_xml("<조문단위>가</조문단위><조문단위>나</조문단위>"), "법령/조문/조문단위[1]",
     "expected an object with 조문번호, got a string"),
    ("XML row without 조문번호", "x.xml", body_xml("<조문단위><조문제목>x</조문제목></조문단위>"),
     "법령/조문/조문단위[1]", "expected an object with 조문번호, got an object without 조문번호"),
    ("XML empty 기본정보", "x.xml", body_xml().replace(
        "<기본정보><법령ID>001706</법령ID><법령명_한글>민법</법령명_한글><법종구분>법률</법종구분><공포일자>20240101</공포일자></기본정보>",
        "<기본정보/>"), "법령/기본정보", "expected an object with 법령ID and 법령명_한글, got a string"),
]


@pytest.mark.parametrize(("name", "content", "node", "problem"), [m[1:] for m in MISSHAPEN],
                         ids=[m[0] for m in MISSHAPEN])
def test_a_misshapen_body_is_refused_naming_the_node_and_changes_nothing(
        civil_code: Database, tmp_path: Path, name: str, content: str, node: str, problem: str) -> None:
    before = snapshot(civil_code)
    path = write(tmp_path, name, content)
    with pytest.raises(UnsupportedShapeError) as raised:
        import_file(civil_code, path)
    assert raised.value.path == path and raised.value.position == node
    assert problem in raised.value.problem
    assert snapshot(civil_code) == before


def test_cli_refuses_a_misshapen_body_with_one_line_and_exit_2(civil_code: Database, database_url: str,
                                                               tmp_path: Path) -> None:
    path = write(tmp_path, "x.json", body_json([*_units(2), "junk"]))
    before = snapshot(civil_code)
    result = runner.invoke(app, ["import", str(path), "--database-url", database_url])
    assert result.exit_code == 2, result.output
    assert f"{path} at 법령/조문/조문단위[3]: expected an object with 조문번호, got a string" in result.output
    assert snapshot(civil_code) == before


# --- values out of bounds ------------------------------------------------------------------------

NAME_5001 = "가" * 5001
BAD_VALUES: list[tuple[str, str, str, type[ImportFileError], str, str]] = [
    ("JSON NaN as 법령ID", "x.json", body_json().replace('"001706"', "NaN"), MalformedFileError, "line 1, column",
     "expected finite JSON numbers, got NaN"),
    ("JSON Infinity as a name", "x.json", body_json().replace('"민법"', "Infinity"), MalformedFileError,
     "line 1, column", "got Infinity"),
    ("JSONL -Infinity as mst", "x.jsonl", '{"type": "act", "law_id": "1", "name": "가법", "mst": -Infinity}',
     MalformedFileError, "line 1, column 53", "got -Infinity"),
    ("JSON act name of 5,001 characters", "x.json", body_json().replace('"민법"', f'"{NAME_5001}"'),
     InvalidValueError, "법령/기본정보", "name: expected at most 200 characters, got 5001"),
    ("JSONL act name of 5,001 characters", "x.jsonl", json.dumps({"type": "act", "law_id": "1", "name": NAME_5001}),
     InvalidValueError, "line 1", "name: expected at most 200 characters, got 5001"),
    ("XML case title of 600 characters", "x.xml", "<PrecSearch><prec><사건번호>2020다1</사건번호><선고일자>20200102"
     "</선고일자><법원명>대법원</법원명><판결유형>판결</판결유형><사건명>" + "가" * 600
     + "</사건명></prec></PrecSearch>",
     InvalidValueError, "row 1", "title: expected at most 500 characters, got 600"),
    ("JSON 법령ID that is not a number", "x.json", body_json().replace('"001706"', '"abc"'), InvalidValueError,
     "법령/기본정보", "law_id: expected"),
    ("JSONL article title as a number", "x.jsonl", ('{"type": "act", "law_id": "1", "name": "가법", "articles": '
                                                     '[{"article": "1", "title": 5}]}'),
     UnsupportedShapeError, "line 1", "title"),
    ("JSONL alias of 300 characters", "x.jsonl", json.dumps({"type": "alias", "alias": "가" * 300, "act": "민법"}),
     InvalidValueError, "line 1", "alias: expected at most 200 characters, got 300"),
]


@pytest.mark.parametrize(("name", "content", "error", "position", "problem"), [b[1:] for b in BAD_VALUES],
                         ids=[b[0] for b in BAD_VALUES])
def test_a_value_out_of_bounds_is_refused_naming_the_limit_and_changes_nothing(
        civil_code: Database, tmp_path: Path, name: str, content: str, error: type[ImportFileError], position: str,
        problem: str) -> None:
    before = snapshot(civil_code)
    path = write(tmp_path, name, content)
    with pytest.raises(error) as raised:
        import_file(civil_code, path)
    assert raised.value.path == path and position in str(raised.value.position)
    assert problem in raised.value.problem
    assert snapshot(civil_code) == before


# --- a real body that would shrink the act ------------------------------------------------------

def test_a_body_dropping_many_provisions_is_refused_saying_what_would_go(
        civil_code: Database, database_url: str, tmp_path: Path) -> None:
    before = snapshot(civil_code)
    path = write(tmp_path, "shrunk.json", body_json(_units(ARTICLES - 10)))
    with pytest.raises(ShrinkError) as raised:
        import_file(civil_code, path)
    message = str(raised.value)
    assert "10 of 60 articles" in message and "30 of 180 provisions" in message
    assert "제51조, 제52조, 제53조" in message and "--allow-shrink" in message
    assert snapshot(civil_code) == before
    result = runner.invoke(app, ["import", str(path), "--database-url", database_url])
    assert result.exit_code == 2 and "--allow-shrink" in result.output
    result = runner.invoke(app, ["import", str(path), "--allow-shrink", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    assert "50 articles (-10)" in result.output


def test_a_body_dropping_few_provisions_passes(civil_code: Database, tmp_path: Path) -> None:
    units = _units(ARTICLES)
    units[-1]["항"] = []  # an amendment that leaves the last article without its three 항
    report = import_file(civil_code, write(tmp_path, "amended.json", body_json(units)))
    assert report.counts["provisions"] == 177


def test_a_body_keeping_its_articles_but_dropping_their_paragraphs_names_the_paragraphs(
        civil_code: Database, tmp_path: Path) -> None:
    units = _units(ARTICLES)
    for unit in units[:10]:
        unit["항"] = []
    with pytest.raises(ShrinkError) as raised:
        import_file(civil_code, write(tmp_path, "flat.json", body_json(units)))
    named = "0 of 60 articles and 30 of 180 provisions (제1조 제1항, 제1조 제2항, 제1조 제3항, 제2조 제1항"
    assert named in str(raised.value)


def test_a_jsonl_act_with_an_empty_article_list_is_a_shrinking_body(civil_code: Database, tmp_path: Path) -> None:
    line = json.dumps({"type": "act", "law_id": "001706", "name": "민법", "articles": []}, ensure_ascii=False)
    with pytest.raises(ShrinkError, match="60 of 60 articles"):
        import_file(civil_code, write(tmp_path, "empty.jsonl", line))


def test_shrink_is_checked_per_act_in_a_file_holding_several(civil_code: Database, tmp_path: Path) -> None:
    def act(law_id: str, name: str, articles: int) -> str:
        return json.dumps({"type": "act", "law_id": law_id, "name": name, "articles": [
            {"article": str(n), "provisions": [{"paragraph": p} for p in (1, 2, 3)]} for n in range(1, articles + 1)]},
            ensure_ascii=False)
    import_file(civil_code, write(tmp_path, "hyeongbeop.jsonl", act("001692", "형법", ARTICLES)))
    before = snapshot(civil_code)
    both = write(tmp_path, "both.jsonl", act("001706", "민법", ARTICLES + 1) + "\n" + act("001692", "형법", 1))
    with pytest.raises(ShrinkError, match=r"형법 \(법령ID 001692\)"):
        import_file(civil_code, both)
    assert snapshot(civil_code) == before  # 민법's new article, written before 형법 was refused, rolled back too


# --- the statute book: one transaction per act, the rest goes on ------------------------------------

def _bundle_line(law_id: str, name: str, msts: list[int]) -> str:
    versions = [[mst, name, "법률", f"2020-01-0{index + 1}", mst, f"2020-01-0{index + 1}", "시행", "일부개정",
                 f"test:{law_id}:{mst}"] for index, mst in enumerate(msts)]
    spans = [[1, 0, 1, len(msts), "목적", False, "1", "이 법은 …"]]
    return json.dumps({"law_id": law_id, "versions": versions, "spans": spans, "supplements": []}, ensure_ascii=False)


def test_an_act_with_a_version_out_of_bounds_is_skipped_whole_and_the_rest_goes_on(
        database: Database, tmp_path: Path) -> None:
    bundle = tmp_path / "three.book.jsonl.xz"
    # the middle act's second version has an MST past the INTEGER columns (SQLite would store it)
    lines = [_bundle_line("000001", "가법", [11, 12]), _bundle_line("000002", "나법", [21, 2**40]),
             _bundle_line("000003", "다법", [31])]
    bundle.write_bytes(lzma.compress("\n".join(lines).encode()))
    report = import_file(database, bundle)
    assert report.counts["acts"] == 2 and report.counts["versions"] == 3
    [skipped] = report.skipped
    assert skipped.position.endswith("line 2")
    assert "act version mst: expected a number up to 2147483647" in skipped.reason
    dumped = snapshot(database).decode()
    assert "나법" not in dumped and "가법" in dumped and "다법" in dumped


def _legalize_file(law_id: str, mst: int, name: str) -> str:
    return (f"---\n제목: {name}\n법령ID: '{law_id}'\n법령MST: {mst}\n법령구분: 법률\n공포일자: 2020-01-01\n"
            f"시행일자: 2020-01-01\n상태: 시행\n---\n# {name}\n\n##### 제1조 (목적)\n\n이 법은 …\n")


def test_a_legalize_file_out_of_bounds_is_skipped_and_named_and_the_rest_goes_on(
        database: Database, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    files = (("가법", _legalize_file("000001", 11, "가법")), ("나법", _legalize_file("000002", 21, "나" * 201)),
             ("다법", _legalize_file("000003", 31, "다법")))
    for folder, text in files:
        (tree / "kr" / folder).mkdir(parents=True)
        (tree / "kr" / folder / "법률.md").write_text(text, encoding="utf-8")
    report = import_file(database, tree)
    assert report.counts["acts"] == 2
    [skipped] = report.skipped
    assert "나법" in skipped.position and "act version name: expected at most 200 characters, got 201" in skipped.reason


SPAN_TRIGGERS = {  # a database that refuses one span, as a constraint would: a failure inside an act's write
    "sqlite": [("CREATE TRIGGER refuse BEFORE INSERT ON article_spans WHEN NEW.text = 'BOOM' "
                "BEGIN SELECT RAISE(ABORT, 'span refused'); END")],
    "postgresql": [("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.text = 'BOOM' THEN "
                    "RAISE EXCEPTION 'span refused' USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$"),
                   "CREATE TRIGGER refuse BEFORE INSERT ON article_spans FOR EACH ROW EXECUTE FUNCTION refuse()"],
}


def test_a_database_failure_while_an_act_is_written_rolls_that_act_back_and_the_rest_goes_on(
        database: Database, tmp_path: Path) -> None:
    with database.engine.begin() as connection:
        for statement in SPAN_TRIGGERS[database.engine.dialect.name]:
            connection.exec_driver_sql(statement)
    broken = json.loads(_bundle_line("000002", "나법", [21, 22]))
    broken["spans"].append([2, 0, 2, 2, "BOOM", False, "", "BOOM"])  # written after the act row and its versions
    bundle = tmp_path / "three.book.jsonl.xz"
    lines = [_bundle_line("000001", "가법", [11, 12]), json.dumps(broken, ensure_ascii=False),
             _bundle_line("000003", "다법", [31])]
    bundle.write_bytes(lzma.compress("\n".join(lines).encode()))
    report = import_file(database, bundle)
    assert report.counts["acts"] == 2 and report.counts["versions"] == 3
    [skipped] = report.skipped
    assert "법령ID 000002" in skipped.position and "span refused" in skipped.reason
    dumped = snapshot(database).decode()
    assert "나법" not in dumped and "000002" not in dumped and "가법" in dumped and "다법" in dumped


# --- byte-identical re-export -----------------------------------------------------------------------

def test_a_reimport_of_the_same_sources_leaves_a_byte_identical_snapshot(
        database: Database, sample_dir: Path, legalize_repo: Path, tmp_path: Path) -> None:
    other_act = body_json().replace('"001706"', '"009999"').replace('"민법"', '"시험법"')
    body = write(tmp_path, "test_act.json", other_act)
    import_paths(database, [sample_dir, legalize_repo, body])
    first = snapshot(database)
    import_paths(database, [sample_dir, legalize_repo, body])
    assert snapshot(database) == first
    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(snapshot(database)).hexdigest()
    tables = {json.loads(line)["table"] for line in first.decode().splitlines()}
    assert {"acts", "act_versions", "article_spans", "articles", "provisions", "cases", "act_aliases"} <= tables


def test_cli_dump_writes_the_snapshot(civil_code: Database, database_url: str, tmp_path: Path) -> None:
    target = tmp_path / "dump.jsonl"
    result = runner.invoke(app, ["dump", str(target), "--database-url", database_url])
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == snapshot(civil_code)


@pytest.mark.postgres
def test_the_dump_is_the_same_bytes_on_sqlite_and_postgresql(
        both_backends: tuple[str, str], sample_dir: Path, legalize_repo: Path) -> None:
    dumps = []
    for url in both_backends:
        database = Database.open(url)
        import_paths(database, [sample_dir, legalize_repo])
        dumps.append(snapshot(database))
        database.close()
    assert dumps[0] == dumps[1] and len(dumps[0].splitlines()) > 3000
