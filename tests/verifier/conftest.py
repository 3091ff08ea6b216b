"""Each test gets its own database: a fresh SQLite file, or a fresh PostgreSQL schema.

PostgreSQL is 127.0.0.1:5432 (user postgres, db `test`). It is skipped only when unreachable and
CITEGEN_REQUIRE_POSTGRES is unset; CI sets it, and then unreachable is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from verifier.database import Database
from verifier.importers import import_paths

POSTGRES_CONNINFO = "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=3"
POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[psycopg.Connection]:
    try:
        connection = psycopg.connect(POSTGRES_CONNINFO, autocommit=True)
    except psycopg.OperationalError as error:
        if os.environ.get("CITEGEN_REQUIRE_POSTGRES"):
            pytest.fail(f"CITEGEN_REQUIRE_POSTGRES is set but PostgreSQL is unreachable: {error}")
        pytest.skip(f"PostgreSQL unreachable at 127.0.0.1:5432: {error}")
    yield connection
    connection.close()


BACKENDS = [pytest.param("sqlite", id="sqlite"), pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]


@contextmanager
def _empty_database_url(backend: str, folder: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{folder / f'verifier-{uuid.uuid4().hex[:8]}.sqlite3'}"
        return
    admin: psycopg.Connection = request.getfixturevalue("postgres_admin")
    schema = f"verifier_test_{uuid.uuid4().hex[:12]}"
    admin.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database of the backend the test runs on."""
    with _empty_database_url(request.param, tmp_path, request) as url:
        yield url


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    db = Database.open(database_url)
    yield db
    db.close()


# --- small law.go.kr-shaped samples, hand-made (values are illustrative) ----------------------

STATUTE_BODY_XML = """<?xml version="1.0" encoding="UTF-8"?>
<법령 법령키="0017062024010120000">
  <기본정보><법령ID>1706</법령ID><공포일자>20240101</공포일자><공포번호>20000</공포번호>
    <법종구분 법종구분코드="A0002">법률</법종구분><법령명_한글><![CDATA[민법]]></법령명_한글>
    <법령명약칭/><시행일자>20240101</시행일자></기본정보>
  <조문>
    <조문단위 조문키="0750000"><조문번호>750</조문번호><조문여부>전문</조문여부><조문내용>제5장 불법행위</조문내용></조문단위>
    <조문단위 조문키="0750001"><조문번호>750</조문번호><조문여부>조문</조문여부><조문제목>불법행위의 내용</조문제목>
      <조문내용>제750조(불법행위의 내용) 고의 또는 과실로 인한 위법행위로 …</조문내용></조문단위>
    <조문단위 조문키="0003002"><조문번호>3</조문번호><조문가지번호>2</조문가지번호><조문여부>조문</조문여부>
      <조문내용>제3조의2 삭제 &lt;2020. 1. 1.&gt;</조문내용></조문단위>
    <조문단위 조문키="0005001"><조문번호>5</조문번호><조문여부>조문</조문여부><조문이동이후>000502</조문이동이후>
      <조문내용>제5조 [제5조의2로 이동]</조문내용></조문단위>
    <조문단위 조문키="0023001"><조문번호>23</조문번호><조문여부>조문</조문여부><조문제목>해고 등의 제한</조문제목>
      <항><항번호>①</항번호><항내용>①…</항내용>
        <호><호번호>1.</호번호><호내용>1. …</호내용></호>
        <호><호번호>3의2.</호번호><호가지번호>2</호가지번호><호내용>3의2. …</호내용>
          <목><목번호>가.</목번호><목내용>가. …</목내용></목></호></항>
      <항><항번호>② </항번호><항내용>②…</항내용></항></조문단위>
  </조문>
  <부칙><부칙단위><부칙공포일자>20240101</부칙공포일자><부칙내용>이 법은 …</부칙내용></부칙단위></부칙>
</법령>
"""

STATUTE_LIST_JSON = """{"LawSearch": {"totalCnt": "1", "page": "1", "law": {
  "법령일련번호": "253527", "현행연혁코드": "현행", "법령명한글": "주택임대차보호법", "법령약칭명": "주택임대차법",
  "법령ID": "001248", "공포일자": "20231226", "법령구분명": "법률", "시행일자": "20240101"}}}"""

CASE_LIST_XML = """<?xml version="1.0" encoding="UTF-8"?>
<PrecSearch><totalCnt>4</totalCnt><page>1</page>
  <prec id="1"><판례일련번호>238000</판례일련번호><사건명>사기</사건명><사건번호>2024도4202</사건번호>
    <선고일자>20240711</선고일자><선고>선고</선고><법원명>대법원</법원명><법원종류코드>400201</법원종류코드>
    <판결유형>판결</판결유형></prec>
  <prec id="2"><판례일련번호>238001</판례일련번호><사건명>손해배상(기)</사건명><사건번호>2015도2004</사건번호>
    <선고일자>20200618</선고일자><선고>선고</선고><법원명>대법원</법원명><판결유형>전원합의체 판결</판결유형></prec>
  <prec id="3"><판례일련번호>238002</판례일련번호><사건명>손해배상</사건명><사건번호>2022나2034567</사건번호>
    <선고일자>20230504</선고일자><법원명>서울고법</법원명><판결유형>제11민사부판결 : 상고</판결유형></prec>
  <prec id="4"><판례일련번호>238003</판례일련번호><사건명>양도소득세</사건명><사건번호>수원지방법원-2025-구단-10915</사건번호>
    <선고일자>20250101</선고일자><법원명>수원지방법원</법원명><판결유형>판결</판결유형></prec>
</PrecSearch>
"""

CASE_BODY_JSON = """{"PrecService": {"판례정보일련번호": "238100", "사건명": "부동산처분금지가처분",
  "사건번호": "2022마6489", "선고일자": "20230112", "선고": "자", "법원명": "대법원", "판결유형": "결정"}}"""

DETC_LIST_JSON = """{"DetcSearch": {"totalCnt": "1", "Detc": [{"헌재결정례일련번호": "58000",
  "종국일자": "20200326", "사건번호": "2017헌마1281", "사건명": "공직선거법 제57조 위헌확인"}]}}"""

DETC_BODY_XML = """<?xml version="1.0" encoding="UTF-8"?>
<DetcService><헌재결정례일련번호>47000</헌재결정례일련번호><종국일자>20150924</종국일자>
  <사건번호>2015헌바35</사건번호><사건명>형법 제250조 위헌소원</사건명><재판부구분코드>430201</재판부구분코드></DetcService>
"""

EXTRA_JSONL = """{"type": "act", "law_id": "001692", "name": "형법", "kind": "법률", "articles": [{"article": "250", "provisions": [{"paragraph": 1}, {"paragraph": 2}]}]}
{"type": "act", "law_id": "001700", "name": "민사소송법", "kind": "법률", "articles": [{"article": "1"}]}

{"type": "alias", "alias": "민소법", "act": "민사소송법"}
{"type": "case", "court": "서울중앙지방법원", "date": "2023-02-01", "case_number": "2022가합1234", "disposition": "판결"}
{"type": "case", "court": "부산지방법원", "date": "2023-03-01", "case_number": "2022가합1234", "disposition": "판결"}
{"type": "coverage", "kind": "case", "court": "대법원", "from": "1990-01-01", "to": "2025-12-31"}
"""

SAMPLES = {
    "law/minbeop.xml": STATUTE_BODY_XML, "law/list.json": STATUTE_LIST_JSON, "law/extra.jsonl": EXTRA_JSONL,
    "cases/prec_list.xml": CASE_LIST_XML, "cases/prec_body.json": CASE_BODY_JSON,
    "cases/detc_list.json": DETC_LIST_JSON, "cases/detc_body.xml": DETC_BODY_XML,
}


def write_samples(root: Path) -> Path:
    for name, text in SAMPLES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def sample_dir(tmp_path: Path) -> Path:
    return write_samples(tmp_path / "samples")


@pytest.fixture(scope="session", params=BACKENDS)
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A database holding every sample, shared by the tests that only read it (and write audit rows)."""
    folder = tmp_path_factory.mktemp("loaded")
    with _empty_database_url(request.param, folder, request) as url:
        db = Database.open(url)
        import_paths(db, [write_samples(folder / "samples") / "law", folder / "samples" / "cases"])
        yield db
        db.close()
