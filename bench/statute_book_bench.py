"""The statute book: import time and size, verify/s against it, and the book checking itself.

    .venv/bin/python bench/statute_book_bench.py [--source data/law] [--backends sqlite,postgresql]
                                                 [--citations 20000] [--self-check-acts 0]
                                                 [--keep-sqlite PATH] [--keep-postgresql NAME]
                                                 [--self-check-database URL]

1. Imports `--source` (the shipped bundle, or a legalize-kr repository for the whole history
   with every version's text) into a fresh database per backend: time, versions, spans, size.
2. verify/s cold (fresh verifier, each citation once) and warm (cache filled) on a seeded mix of
   real citations sampled from the book: current articles, provisions, deleted/old articles
   (`outdated`), invented article numbers (`not_found`).
3. The book checks itself: every cross-reference inside the article texts in force (`「민법」
   제3조제1항`, `같은 법 제5조`, `이 법 제2조`, a 시행령's `법 제3조` → its 법률) found with grammars'
   lenient finder, resolved by the verifier's document resolver (이 법 → the act itself, 같은 법 /
   같은 조 → what was cited before it, 제1항 → the article's own, 법/영 → the decree's 법률/시행령,
   declared short names) and
   verified against the version in force; prints the share that verifies among those naming an
   act in force and the classes of the rest.
Writes bench/results/statute_book_bench.md (`--self-check-database URL` runs step 3 alone on a database
already holding the book and only prints it). Each backend's database is fresh (an SQLite file, a
PostgreSQL database) and removed at the end, unless --keep-sqlite/--keep-postgresql name where to
leave it: `python -m bench` shares this import with the benches after it (bench/shared_book.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import shutil
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path

import psycopg
from sqlalchemy import Connection, func, select

from bench.report import results_page
from grammars import StatuteCitation, declared_names
from verifier.database import Database
from verifier.declarations import parent_act
from verifier.importers import import_paths
from verifier.models import ACTS, SPANS, AnyRow
from verifier.resolver import DocumentResolver
from verifier.verdict import Verdict
from verifier.verify import Verifier
from verifier.versions import in_force, repealed, versions_of

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "statute_book_bench.md"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/"
POSTGRES_ADMIN = "host=127.0.0.1 user=postgres dbname=postgres"


def open_backend(backend: str, args: argparse.Namespace) -> tuple[Database, Path | None, str | None]:
    """A fresh database of `backend`: (it, its SQLite file, its PostgreSQL database's name)."""
    if backend == "sqlite":
        path = args.keep_sqlite or Path(tempfile.mkdtemp(prefix="book-sqlite-")) / "book.sqlite3"
        return Database.open(f"sqlite:///{path}"), path, None
    name = args.keep_postgresql or f"book_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return Database.open(POSTGRES + name), None, name


def size_of(database: Database, path: Path | None) -> int:
    if path is not None:
        return sum(file.stat().st_size for file in path.parent.glob(f"{path.name}*"))
    with database.engine.connect() as connection:
        return int(connection.exec_driver_sql(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind = 'r'").scalar_one())


def sample(database: Database, count: int, seed: int = 7) -> list[StatuteCitation]:
    rng = random.Random(seed)
    with database.engine.connect() as connection:
        rows = connection.execute(select(ACTS.c.name, SPANS.c.number, SPANS.c.branch, SPANS.c.structure)
                                  .join(ACTS, ACTS.c.id == SPANS.c.act_id).where(SPANS.c.deleted.is_(False))
                                  .order_by(SPANS.c.id)).all()
    picked = rng.sample(rows, min(count, len(rows)))
    citations = []
    for index, row in enumerate(picked):
        citation = StatuteCitation(row.name, row.number, article_branch=row.branch or None)
        codes = row.structure.split()
        if index % 3 == 1 and codes:
            paragraph = rng.choice(codes).partition(".")[0]
            citation = replace(citation, paragraph=int(paragraph) or None)
        elif index % 10 == 9:
            citation = replace(citation, article=row.number + 900)  # invented
        citations.append(citation)
    return citations


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s" if seconds else "-"


def run_backend(backend: str, args: argparse.Namespace) -> tuple[list[str], Database | None]:
    database, path, name = open_backend(backend, args)
    try:
        row = measure(database, path, args)
    except BaseException:
        database.close()
        drop_postgresql(name, args)  # a failed run leaves no database behind
        raise
    if name is None:  # the self-check runs on the first backend
        return row, database
    database.close()  # a PostgreSQL database is done now
    drop_postgresql(name, args)
    return row, None


def drop_postgresql(name: str | None, args: argparse.Namespace) -> None:
    if name is not None and not args.keep_postgresql:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def measure(database: Database, path: Path | None, args: argparse.Namespace) -> list[str]:
    started = time.perf_counter()
    reports = import_paths(database, args.source)
    spent = time.perf_counter() - started
    versions = sum(report.counts["versions"] for report in reports)
    skipped = sum(len(report.skipped) for report in reports)
    with database.engine.connect() as connection:
        if database.engine.dialect.name == "postgresql":  # a count over 781k rows is no service call: no timeout
            connection.exec_driver_sql("SET statement_timeout = 0")
        acts = connection.execute(select(func.count()).select_from(ACTS)).scalar_one()
        spans = connection.execute(select(func.count()).select_from(SPANS)).scalar_one()
        connection.rollback()  # the SET goes back with the connection's transaction
    size = size_of(database, path)
    citations = sample(database, args.citations)
    with Verifier(database, audit=False) as verifier:
        started = time.perf_counter()
        statuses = Counter(verifier.verify(citation).status for citation in citations)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(args.warm_rounds):
            for citation in citations:
                verifier.verify(citation)
        warm = time.perf_counter() - started
    mix = ", ".join(f"{status} {count}" for status, count in statuses.most_common())
    backend = database.engine.dialect.name
    return [f"| {backend} | {acts:,} | {versions:,} | {spans:,} | {skipped} | {spent:,.0f} s | {size / 1e6:,.0f} MB | "
            f"{rate(len(citations), cold)} | {rate(len(citations) * args.warm_rounds, warm)} | {mix} |"]


def _articles_in_force(connection: Connection, act_id: int, today: dt.date) -> tuple[str, list[AnyRow]] | None:
    """(the act's name, its articles with text) in the version in force; None for an act not in force."""
    current = in_force(versions_of(connection, act_id), today)
    if current is None or repealed(current):
        return None
    return current.name, list(connection.execute(select(SPANS.c.number, SPANS.c.branch, SPANS.c.text).where(
        SPANS.c.act_id == act_id, SPANS.c.first <= current.sequence, SPANS.c.last >= current.sequence,
        SPANS.c.text.is_not(None))).all())


def _declared_in(articles: list[AnyRow]) -> dict[str, str]:
    """The short names an act's articles declare (`(이하 "고용산재보험료징수법"이라 한다)` in 제4조), for all its
    articles; a name declared for two acts stands for neither."""
    declared: dict[str, str] = {}
    clashing: set[str] = set()
    for article in articles:
        for short_name, act in declared_names(article.text).items():
            if declared.setdefault(short_name, act) != act:
                clashing.add(short_name)
    return {name: act for name, act in declared.items() if name not in clashing}


def self_check(database: Database, acts_limit: int) -> list[str]:
    """Every cross-reference in the article texts in force, resolved as re-citation resolves a
    document (verifier's DocumentResolver: `이 법`, `같은 법`, `같은 조 제2항`, a decree's `법`/`영`,
    short names declared in the article, another article of its act, or its 법률) and verified
    against the version in force."""
    today = dt.date.today()
    classes: Counter[str] = Counter()
    with database.engine.connect() as connection, Verifier(database, audit=False) as verifier:
        acts = connection.execute(select(ACTS.c.id, ACTS.c.name).order_by(ACTS.c.law_id)).all()
        ids = {name: act_id for act_id, name in acts}
        if acts_limit:
            acts = acts[:acts_limit]
        started = time.perf_counter()
        statutes: dict[str, dict[str, str]] = {}  # a 법률's declared short names, which its decrees use

        def declared_by_statute(name: str) -> dict[str, str]:
            if name not in statutes:
                held = _articles_in_force(connection, ids[name], today) if name in ids else None
                statutes[name] = _declared_in(held[1]) if held else {}
            return statutes[name]

        for act_id, _name in acts:
            held = _articles_in_force(connection, act_id, today)
            if held is None:
                continue
            name, articles = held
            parent = parent_act(name)
            declared = {**(declared_by_statute(parent) if parent != name else {}), **_declared_in(articles)}
            for number, branch, text in articles:  # each article is a document: its back-references stay inside it
                resolver = DocumentResolver(database, own_act=name, own_article=(number, branch),
                                            lookups=verifier.lookups, declared=declared)
                for span in resolver.resolve_text(text):
                    resolved = span.resolution.resolved
                    if not isinstance(resolved, StatuteCitation):
                        continue
                    if resolved.act is None or not resolved.is_complete:
                        classes["unresolved back-reference"] += 1
                        continue
                    classes[_class_of(verifier.verify(resolved, today))] += 1
        spent = time.perf_counter() - started
    total = sum(classes.values())
    naming = total - sum(classes[label] for label in _NAMING_NO_VERSION_HELD)
    share = classes["verified"] / naming if naming else 0.0
    lines = [f"{total:,} cross-references found in the texts in force of {len(acts):,} acts ({spent:,.0f} s); "
             f"**{share:.1%}** of the {naming:,} naming an act the book holds verify (not counting "
             f"{', '.join(_NAMING_NO_VERSION_HELD)}).", "",
             "| class | count | share |", "|---|---:|---:|"]
    lines += [f"| {label} | {count:,} | {count / total:.1%} |" for label, count in classes.most_common()]
    return lines


# Classes whose citations name no version the book holds: left out of the share that verifies.
_NAMING_NO_VERSION_HELD = ("unresolved back-reference", "not_found: act not in the book",
                           "not_covered: former name, versions not in the book")


def _class_of(verdict: Verdict) -> str:
    if verdict.status == "not_found" and "no act named" in verdict.detail:
        return "not_found: act not in the book"
    if verdict.status == "not_covered" and "as its 부칙 says" in verdict.detail:
        return "not_covered: former name, versions not in the book"
    if verdict.status == "not_found":
        return "not_found: provision" if "has no 제" in verdict.detail and "조 has no" in verdict.detail \
            else "not_found: article"
    return verdict.status


def _shown(path: Path) -> str:
    """A source inside the repository by its relative path (results files name no checkout)."""
    return str(path.resolve().relative_to(ROOT)) if path.resolve().is_relative_to(ROOT) else str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, nargs="+", default=[ROOT / "data" / "law"])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--citations", type=int, default=20_000)
    parser.add_argument("--warm-rounds", type=int, default=5)
    parser.add_argument("--self-check-acts", type=int, default=0, help="check only the first N acts (0: all)")
    parser.add_argument("--keep-sqlite", type=Path, help="import into this (new) SQLite file and leave it")
    parser.add_argument("--keep-postgresql", help="import into a PostgreSQL database of this name and leave it")
    parser.add_argument("--self-check-database", metavar="URL",
                        help="only the self-check, on this database already holding the book (no import)")
    args = parser.parse_args()
    if args.self_check_database:
        book = Database.open(args.self_check_database)
        print("\n".join(self_check(book, args.self_check_acts)))  # not a whole run: results page left as it is
        book.close()
        return
    lines = [f"# statute_book_bench ({dt.date.today()}, {platform.machine()}, {os.cpu_count()} CPUs)", "",
             f"source: {', '.join(_shown(path) for path in args.source)}", "",
             "| backend | acts | versions | article spans | skipped | import | database | verify cold | verify warm |"
             " verdicts (cold run) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    checked: Database | None = None
    for backend in args.backends.split(","):
        rows, database = run_backend(backend, args)
        lines += rows
        print("\n".join(rows), flush=True)
        if checked is None:
            checked = database
    if checked is not None:
        lines += ["", "## The book checks itself", ""] + self_check(checked, args.self_check_acts)
        checked.close()
        if not args.keep_sqlite:
            shutil.rmtree(Path(checked.engine.url.database or "").parent)
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(results_page([text], about=__doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
