"""Import throughput of `citegen-admin sync` from replayed law.go.kr answers, and what a first
full sync costs at the API's rate: `python bench/sync_bench.py [--decisions 2000] [--versions 40]`.

The answers are served by `httpx.MockTransport` with the rate limit off, so the numbers are the
sync's own work per item (parse the body with the importers' reader, one transaction per item,
mark it done): decisions/s for 판례 (PrecService bodies built in the API's shape, each a new
사건번호) and versions/s for statutes (the real 건축법 body of tests/verifier/sync/fixtures, once
per version with its 공포일자 and MST moved on, so each is appended to the act's history and
its spans extended). SQLite (a file) and PostgreSQL at 127.0.0.1:5432 when it answers, side by side.

Then the first full sync at `--rate` requests per second: one list request per 100 rows plus one
body per statute and decision, at the sizes of ../shared/reference/legal-citations.md §4, the
time being the larger of the requests' time at the rate and the import time measured here
(bodies are fetched while earlier items import).

Prints a markdown table and writes bench/results/sync_bench.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import re
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import psycopg

from bench.report import results_page
from verifier.database import Database
from verifier.sync import ClientConfig, LawGoClient, SyncPlan, run_sync

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "verifier" / "sync" / "fixtures"
RESULTS = ROOT / "bench" / "results" / "sync_bench.md"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
PAGE = 100
# law.go.kr's sizes (../shared/reference/legal-citations.md §4): current acts, 판례, 헌재, 약칭
FULL = {"law": 5_572, "prec": 92_264, "detc": 36_781, "abbreviations": 2_642}


def _prec_row(index: int) -> tuple[str, str]:
    day = dt.date(2000, 1, 1) + dt.timedelta(days=index % 9000)
    return str(500_000 + index), (f"<판례일련번호>{500_000 + index}</판례일련번호><사건명>손해배상(기)</사건명>"
                                  f"<사건번호>{2000 + index % 25}다{100_000 + index}</사건번호>"
                                  f"<선고일자>{day:%Y%m%d}</선고일자><선고>선고</선고><법원명>대법원</법원명>"
                                  "<법원종류코드>400201</법원종류코드><판결유형>판결</판결유형>")


def _routes(decisions: int, versions: int) -> Callable[[httpx.Request], httpx.Response]:
    law_body = (FIXTURES / "real" / "law-service-001823.xml").read_bytes()
    rows = [_prec_row(index) for index in range(decisions)]
    bodies = {key: f'<?xml version="1.0" encoding="UTF-8"?><PrecService>{fields}</PrecService>'.encode()
              for key, fields in rows}
    msts = [str(300_000 + index) for index in range(versions)]
    law_bodies = {mst: re.sub(rb"<\xea\xb3\xb5\xed\x8f\xac\xec\x9d\xbc\xec\x9e\x90>\d+", (
        "<공포일자>" + f"{dt.date(2026, 1, 1) + dt.timedelta(days=index):%Y%m%d}").encode(), law_body, count=1)
                  for index, mst in enumerate(msts)}

    def page_of(items: list[str], root: str, row: str, page: int, total: int) -> bytes:
        chosen = "".join(f"<{row}>{item}</{row}>" for item in items[(page - 1) * PAGE:page * PAGE])
        return f'<?xml version="1.0" encoding="UTF-8"?><{root}><totalCnt>{total}</totalCnt>{chosen}</{root}>'.encode()

    law_rows = [f"<법령일련번호>{mst}</법령일련번호><현행연혁코드>현행</현행연혁코드><법령ID>001823</법령ID>"
                for mst in msts]

    def answer(request: httpx.Request) -> httpx.Response:
        params = request.url.params
        target, page = params["target"], int(params.get("page", "1"))
        if request.url.path.endswith("lawSearch.do"):
            content = (page_of([fields for _, fields in rows], "PrecSearch", "prec", page, decisions)
                       if target == "prec" else page_of(law_rows, "LawSearch", "law", page, versions))
        else:
            content = bodies[params["ID"]] if target == "prec" else law_bodies[params["MST"]]
        return httpx.Response(200, content=content)
    return answer


def _measure(url: str, target: str, decisions: int, versions: int) -> tuple[float, int]:
    """Seconds for one sync of `target` into a fresh database at `url`, and the items imported."""
    database = Database.open(url)
    config = ClientConfig(oc="bench", requests_per_s=1e9, concurrency=4)
    try:
        with LawGoClient(config, transport=httpx.MockTransport(_routes(decisions, versions))) as client:
            start = time.perf_counter()
            report = run_sync(database, client, SyncPlan(targets=(target,), until=dt.date(2026, 12, 1)))
            seconds = time.perf_counter() - start
    finally:
        database.close()
    summary = report.streams[0]
    return seconds, summary.counts["added"] + summary.counts["updated"]


class PostgresSchemas:
    """A fresh schema per measurement on the local server (None when it does not answer), all
    dropped at the end."""

    def __init__(self) -> None:
        try:
            self.admin: psycopg.Connection | None = psycopg.connect(
                "host=127.0.0.1 port=5432 user=postgres dbname=test connect_timeout=3", autocommit=True)
        except psycopg.OperationalError:
            self.admin = None
        self.created: list[str] = []

    def url(self) -> str | None:
        if self.admin is None:
            return None
        schema = f"sync_bench_{uuid.uuid4().hex[:8]}"
        self.admin.execute(f'CREATE SCHEMA "{schema}"')
        self.created.append(schema)
        return f"{POSTGRES}?options=-csearch_path%3D{schema}"

    def close(self) -> None:
        if self.admin is not None:
            for schema in self.created:
                self.admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
            self.admin.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--versions", type=int, default=40)
    parser.add_argument("--rate", type=float, default=2.0, help="requests per second law.go.kr is asked at")
    args = parser.parse_args()
    lines = [f"# sync import throughput ({platform.node()}, {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC)", "",
             f"`python bench/sync_bench.py --decisions {args.decisions} --versions {args.versions} --rate {args.rate}`",
             "", "| database | 판례 decisions/s | statute versions/s (건축법, 178 조문) |", "|---|---|---|"]
    rates: dict[str, tuple[float, float]] = {}
    schemas = PostgresSchemas()
    with tempfile.TemporaryDirectory() as folder:
        backends: dict[str, Callable[[], str | None]] = {
            "SQLite": lambda: f"sqlite:///{Path(folder) / f'{uuid.uuid4().hex}.sqlite3'}", "PostgreSQL": schemas.url}
        for name, make_url in backends.items():
            prec_url, law_url = make_url(), make_url()
            if prec_url is None or law_url is None:
                lines.append(f"| {name} | not reachable | |")
                continue
            prec_s, prec_n = _measure(prec_url, "prec", args.decisions, args.versions)
            law_s, law_n = _measure(law_url, "law", args.decisions, args.versions)
            rates[name] = (prec_n / prec_s, law_n / law_s)
            lines.append(f"| {name} | {prec_n / prec_s:,.0f} ({prec_n} in {prec_s:.1f} s) | "
                         f"{law_n / law_s:,.1f} ({law_n} in {law_s:.1f} s) |")
    lines += ["", (f"First full sync at {args.rate:g} requests/s (sizes of legal-citations.md §4; one list request "
              "per 100 rows, one body per statute and decision):"), "",
              "| database | requests | at the rate | import alone | expected |", "|---|---|---|---|---|"]
    requests = sum(-(-rows // PAGE) for rows in FULL.values()) + FULL["law"] + FULL["prec"] + FULL["detc"]
    for name, (decisions_per_s, versions_per_s) in rates.items():
        importing = (FULL["prec"] + FULL["detc"]) / decisions_per_s + FULL["law"] / versions_per_s
        at_rate = requests / args.rate
        lines.append(f"| {name} | {requests:,} | {at_rate / 3600:.1f} h | {importing / 3600:.2f} h | "
                     f"{max(at_rate, importing) / 3600:.1f} h |")
    schemas.close()
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.write_text(results_page([text], about=__doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
