"""Replaying law.go.kr: recorded and built response bodies (fixtures/README.md) served through
`httpx.MockTransport`, and a fake clock whose `sleep` only moves time, so retries and the rate
limit run for real without waiting; `sync` runs a sync against a replay, `snapshot` reads back
what it wrote."""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from verifier.database import Database
from verifier.models import METADATA
from verifier.sync import ClientConfig, LawGoClient, SyncPlan, SyncReport, run_sync
from verifier.sync.runner import Progress

FIXTURES = Path(__file__).parent / "fixtures"
OC = "citegen-test-oc-7Q3"  # a key that appears nowhere else, so a leak is found by searching for it
TODAY = dt.date(2026, 11, 30)
TABLES = ("acts", "act_aliases", "articles", "provisions", "act_versions", "article_spans", "cases", "coverage",
          "sync_cursors", "sync_items")

Answer = bytes | int | httpx.Response | Exception  # a body (200), a status, a response, or an error to raise


def body(name: str) -> bytes:
    """A fixture's bytes: `real/…` or `built/…`."""
    return (FIXTURES / name).read_bytes()


def law_go_kr() -> dict[tuple[str, str, str], Answer]:
    """The API as the fixtures answer it: (endpoint, target, page or ID/MST) -> answer."""
    routes: dict[tuple[str, str, str], Answer] = {
        ("lawSearch.do", "eflaw", "1"): body("built/eflaw-search-page1.xml"),
        ("lawService.do", "law", "277031"): body("real/law-service-001823.xml"),
        ("lawSearch.do", "detc", "1"): body("built/detc-search-page1.xml"),
        ("lawSearch.do", "lsAbrv", "1"): body("built/lsabrv-page1.xml"),
    }
    for page in (1, 2, 3):
        routes["lawSearch.do", "prec", str(page)] = body(f"built/prec-search-page{page}.xml")
    for case_id in ("217381", "237583", "245007", "241875", "900101", "900102"):
        routes["lawService.do", "prec", case_id] = body(f"built/prec-service-{case_id}.xml")
    for decision_id in ("53221", "190459"):
        routes["lawService.do", "detc", decision_id] = body(f"built/detc-service-{decision_id}.xml")
    return routes


@dataclass
class Replay:
    """A MockTransport handler. `faults[key]` answers are served (in order) before the route's own;
    `kill_after` bodies served, the next body request raises `Killed` (a process stopped mid-sync)."""

    routes: dict[tuple[str, str, str], Answer]
    faults: dict[tuple[str, str, str], list[Answer]] = field(default_factory=dict)
    kill_after: int | None = None
    paged: dict[str, Callable[[int, int], bytes]] = field(default_factory=dict)  # target -> (page, display) -> list
    seen: list[httpx.URL] = field(default_factory=list)
    bodies_served: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)  # bodies are fetched from several threads

    def __post_init__(self) -> None:
        self.faults = {key: list(answers) for key, answers in self.faults.items()}  # served by popping: our own copy

    def __call__(self, request: httpx.Request) -> httpx.Response:
        with self.lock:
            return self._answer(request)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request.url)
        params = request.url.params
        endpoint = request.url.path.rsplit("/", 1)[-1]
        which = params.get("page") if endpoint == "lawSearch.do" else params.get("ID") or params.get("MST")
        key = (endpoint, params.get("target", ""), which or "")
        if endpoint == "lawService.do" and self.kill_after is not None and self.bodies_served >= self.kill_after:
            raise Killed(f"killed after {self.bodies_served} bodies")
        queued = self.faults.get(key)
        if endpoint == "lawSearch.do" and key[1] in self.paged:
            answer: Answer = self.paged[key[1]](int(params["page"]), int(params["display"]))
        else:
            answer = queued.pop(0) if queued else self.routes.get(key, 404)
        if endpoint == "lawService.do" and isinstance(answer, bytes):
            self.bodies_served += 1
        return _response(answer)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


def prec_list_in_pages_of_any_size(page: int, display: int) -> bytes:
    """The 판례 list of the built pages (each of two rows) as law.go.kr pages it `display` rows at a time."""
    pages = [body(f"built/prec-search-page{number}.xml") for number in (1, 2, 3)]
    rows = [row for listed in pages for row in re.findall(rb"<prec id=.*?</prec>", listed, re.S)]
    head = pages[0][: pages[0].index(b"<prec id=")].replace(b"<page>1</page>", f"<page>{page}</page>".encode())
    return head + b"".join(rows[(page - 1) * display : page * display]) + b"</PrecSearch>"


class Killed(Exception):
    """Raised from the transport: not an httpx error, so nothing retries it (like Ctrl-C)."""


def _response(answer: Answer) -> httpx.Response:
    if isinstance(answer, Exception):
        raise answer
    if isinstance(answer, httpx.Response):
        return answer
    if isinstance(answer, int):
        return httpx.Response(answer, content=b"")
    return httpx.Response(200, content=answer, headers={"Content-Type": "text/xml;charset=UTF-8"})


@dataclass
class FakeTime:
    now: float = 1000.0
    sleeps: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


ReplayFactory = Callable[..., Replay]


def sync(database: Database, replay: Replay, fake_time: FakeTime, *, until: dt.date = TODAY,
         concurrency: int = 3, page_size: int = 2, on_progress: Progress | None = None, **plan: Any) -> SyncReport:
    config = ClientConfig(oc=OC, requests_per_s=5.0, concurrency=concurrency, retries=3, backoff_s=1.0)
    with LawGoClient(config, transport=replay.transport(), clock=fake_time.clock, sleep=fake_time.sleep) as client:
        return run_sync(database, client, SyncPlan(until=until, page_size=page_size, **plan), on_progress)


def snapshot(database: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the tables a sync writes, without surrogate ids, sorted: equal databases (on any
    backend), equal snapshots."""
    tables: dict[str, list[tuple[Any, ...]]] = {}
    with database.engine.connect() as connection:
        for table in TABLES:
            rows = connection.execute(select(METADATA.tables[table])).mappings().all()
            tables[table] = sorted(tuple(str(value) for key, value in row.items() if key not in ("id", "act_id",
                                                                                                  "version_id"))
                                   for row in rows)
    return tables


def version_body(promulgated: str, *, law_id: str = "001823", name: str = "건축법", number: str = "21065",
                 effective: str | None = None, change: str = "일부개정", purpose: str | None = None) -> bytes:
    """Built: the real 건축법 body (real/law-service-001823.xml) as another version of an act, its
    기본정보's 법령ID, 법령명, 공포일자, 공포번호, 시행일자 and 제개정구분 replaced, and with `purpose` the
    end of 제1조 (`…이바지하는 것을 목적으로 한다.`), so that versions differ where a test looks."""
    text = body("real/law-service-001823.xml").decode()
    for tag, value in (("법령ID", law_id), ("공포일자", promulgated), ("공포번호", number),
                       ("시행일자", effective or promulgated), ("제개정구분", change)):
        start = text.index(f"<{tag}>") + len(tag) + 2
        text = text[:start] + value + text[text.index(f"</{tag}>", start):]
    text = text.replace("<법령명_한글><![CDATA[건축법]]>", f"<법령명_한글><![CDATA[{name}]]>", 1)
    if purpose is not None:
        text = text.replace("이바지하는 것을 목적으로 한다.", purpose, 1)
    return text.encode()
