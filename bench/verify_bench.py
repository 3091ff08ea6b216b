"""Verifier benchmark: import speed, and verify() throughput cold and warm, on SQLite and PostgreSQL.

    .venv/bin/python bench/verify_bench.py [--acts 20] [--articles 500] [--cases 20000] [--citations 10000]

Generates law.go.kr-shaped XML (statute bodies with 항/호, a case list), imports it into a fresh
database per backend, then verifies a seeded mix of citations (existing, missing, mismatched) with
an empty cache ("cold": every call looks up the database) and again with the cache filled ("warm").
Both include the audit log (batched). Prints a table and writes bench/results/verify_bench.md.
Targets (issue 5): import >= 5,000 articles/s; verify >= 2,000/s cold, >= 20,000/s warm on SQLite.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from bench.report import results_page
from grammars import CaseCitation, CaseNumber, ParsedCitation, StatuteCitation
from verifier.database import Database
from verifier.errors import DatabaseUnreachableError
from verifier.importers import import_paths
from verifier.verify import Verifier

RESULTS = Path(__file__).resolve().parent / "results" / "verify_bench.md"
CODES = ("다", "도", "두", "마")


def statute_xml(act: int, articles: int) -> str:
    units = []
    for number in range(1, articles + 1):
        paragraphs = "".join(
            f"<항><항번호>{chr(0x2460 + p)}</항번호><항내용>{chr(0x2460 + p)} 내용</항내용>"
            + "".join(f"<호><호번호>{h}.</호번호><호내용>{h}. 내용</호내용></호>" for h in range(1, 3)) + "</항>"
            for p in range(2))
        units.append(f"<조문단위><조문번호>{number}</조문번호><조문여부>조문</조문여부>"
                     f"<조문제목>제목 {number}</조문제목>"
                     f"<조문내용>제{number}조(제목) 본문</조문내용>{paragraphs}</조문단위>")
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<법령><기본정보><법령ID>{900000 + act}</법령ID>'
            f"<법령명_한글>벤치법{act}</법령명_한글><법종구분>법률</법종구분><시행일자>20240101</시행일자></기본정보>"
            f"<조문>{''.join(units)}</조문></법령>")


def case_date(serial: int) -> dt.date:
    return dt.date(2020, 1, 1) + dt.timedelta(days=serial % 1500)


def case_list_xml(cases: int) -> str:
    rows = "".join(
        f"<prec><판례일련번호>{serial}</판례일련번호><사건명>사건 {serial}</사건명>"
        f"<사건번호>2019{CODES[serial % 4]}{serial}</사건번호><선고일자>{case_date(serial):%Y%m%d}</선고일자>"
        f"<법원명>대법원</법원명><판결유형>{'결정' if CODES[serial % 4] == '마' else '판결'}</판결유형></prec>"
        for serial in range(1, cases + 1))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<PrecSearch>{rows}</PrecSearch>'


def citations(count: int, acts: int, articles: int, cases: int, seed: int = 7) -> list[ParsedCitation]:
    rng = random.Random(seed)
    chosen: list[ParsedCitation] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.5:  # statutes: most exist, some articles are past the end
            article = rng.randint(1, int(articles * 1.1))
            chosen.append(StatuteCitation(f"벤치법{rng.randint(1, acts)}", article, paragraph=rng.choice((None, 1, 2))))
        else:  # cases: most exist, some dates are wrong, some numbers are absent
            serial = rng.randint(1, int(cases * 1.1))
            code = CODES[serial % 4]
            date = case_date(serial) + dt.timedelta(days=1 if rng.random() < 0.1 else 0)
            delivery, disposition = ("자", "결정") if code == "마" else ("선고", "판결")
            chosen.append(CaseCitation(CaseNumber(2019, code, serial), "대법원", date, delivery, disposition))
    return chosen


@contextmanager
def fresh_database(backend: str, folder: Path, postgres: str) -> Iterator[Database]:
    if backend == "sqlite":
        database = Database.open(f"sqlite:///{folder / f'bench-{uuid.uuid4().hex[:8]}.sqlite3'}")
        yield database
        database.close()
        return
    schema = f"verifier_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            database = Database.open(f"{postgres}?options=-csearch_path%3D{schema}")
            yield database
            database.close()
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@contextmanager
def timed() -> Iterator[list[float]]:
    """[wall seconds, CPU seconds of this process]: the machine is shared, so both are reported."""
    spent: list[float] = []
    wall, cpu = time.perf_counter(), time.process_time()
    yield spent
    spent += [time.perf_counter() - wall, time.process_time() - cpu]


def rate(count: int, spent: list[float]) -> str:
    wall, cpu = spent
    return f"{count / wall:,.0f}/s ({count / max(cpu, 1e-9):,.0f}/s CPU)"


def run_backend(backend: str, args: argparse.Namespace, data: Path, folder: Path) -> list[str]:
    with fresh_database(backend, folder, args.postgres_url) as database:
        with timed() as statute_time:
            reports = import_paths(database, [data / "law"])
        articles = sum(report.counts["articles"] for report in reports)
        with timed() as case_time:
            reports = import_paths(database, [data / "cases"])
        cases = sum(report.counts["cases"] for report in reports)
        chosen = citations(args.citations, args.acts, args.articles, args.cases)
        with Verifier(database) as verifier:
            with timed() as cold:
                statuses = [verifier.verify(citation).status for citation in chosen]
                verifier.flush_audit()
            with timed() as warm:
                for _ in range(args.warm_rounds):
                    for citation in chosen:
                        verifier.verify(citation)
                verifier.flush_audit()
    mix = ", ".join(f"{status} {statuses.count(status)}" for status in sorted(set(statuses)))
    return [backend, rate(articles, statute_time), rate(cases, case_time),
            rate(len(chosen), cold), rate(len(chosen) * args.warm_rounds, warm), mix]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acts", type=int, default=20)
    parser.add_argument("--articles", type=int, default=500, help="articles per act")
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--citations", type=int, default=10_000)
    parser.add_argument("--warm-rounds", type=int, default=5)
    parser.add_argument("--postgres-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    headers = ["backend", "import articles", "import cases", "verify cold", "verify warm", "verdicts (cold run)"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as tmp:
        folder = Path(tmp)
        (folder / "law").mkdir()
        (folder / "cases").mkdir()
        for act in range(1, args.acts + 1):
            (folder / "law" / f"{act:03d}.xml").write_text(statute_xml(act, args.articles), encoding="utf-8")
        (folder / "cases" / "list.xml").write_text(case_list_xml(args.cases), encoding="utf-8")
        for backend in ("sqlite", "postgresql"):
            try:
                rows.append(run_backend(backend, args, folder, folder))
            except (DatabaseUnreachableError, psycopg.OperationalError) as error:
                rows.append([backend, "unreachable", "", "", "", str(error).splitlines()[0]])
    setup = (f"{args.acts} acts x {args.articles} articles (2 항 x 2 호 each), {args.cases:,} 대법원 cases, "
             f"{args.citations:,} citations (half statutes, half cases; warm = {args.warm_rounds} more rounds); "
             f"audit log on. Rates are wall clock, and in brackets per CPU second of the benchmark process "
             f"(the machine is shared; PostgreSQL's server time is not in the CPU figure); "
             f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
             f"{platform.python_implementation()} {platform.python_version()}, "
             f"{platform.machine()}, run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC")
    table = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    table += ["| " + " | ".join(row) + " |" for row in rows]
    command = "`.venv/bin/python bench/verify_bench.py`"
    text = "\n".join(["# verifier benchmark", "", command, "", setup, "", *table, ""])
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(results_page([text], about=__doc__), encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
