"""The database's statute names and article numbers as plain data, for grammars' statute grammar.

`lexicon_data(db)` is `{act name or 약칭: [article labels]}` ("750", "3의2"), the plain form
`grammars.statute_grammar(lexicon=...)` accepts; deleted and moved articles are left out, since a
citation to them does not verify. Acts imported with their history (the statute book) give
their current name the articles of their newest version, and every former name (a repealed
act's, or a renamed act's old one) the articles of any version, which a `구` citation may name (and a
plain one dated before the rename: the generator may write a former name with or without `구`, the
verifier says which fits the date). A former name the book knows only from the 부칙 of the amendment
that replaced it (`조세감면규제법`, see former_names) is left out: no article of it can be verified, so
the generator never writes it; the finder still reads it by its shape (`구 조세감면규제법 제56조`). An act
imported from a list only (no body, so no articles known) maps to None: any article number.
`build_lexicon(db)` is the richer `grammars.Lexicon`,
keeping 약칭 and informal abbreviations apart so parsing maps them back to the full name.

Reading the statute book's history takes seconds (800,000 article spans); with a `cache_dir`, what
was read is kept there for the next process until the database changes (verifier.derived), and read
back in milliseconds. It is checked as a `grammars.Lexicon` once, before it is stored, and stored with
that Lexicon's digest: a process that reads it back (whole, as its file's own digest proves) rebuilds
the Lexicon without checking its 190,000 labels again.
"""

from __future__ import annotations

import inspect
import logging
from collections import defaultdict
from pathlib import Path

from sqlalchemy import Connection, String, and_, case, cast, func, select

from grammars import Lexicon, LexiconError, spellable_name
from verifier.database import Database
from verifier.derived import read_through
from verifier.models import ACTS, ALIASES, ARTICLES, SPANS, VERSIONS
from verifier.versions import standing

log = logging.getLogger(__name__)


def _label(number: int, branch: int) -> str:
    return f"{number}의{branch}" if branch else str(number)


def _history_labels(connection: Connection, current: set[str]) -> dict[str, list[str]]:
    """{name: labels} from the history tables: current names their newest version's articles,
    former names, and the names of acts repealed (whose newest version, the repeal, has none), those
    of any version. The database gathers each act's labels (one row an act, of the statute book's
    780,000 article spans), which halves what `citegen ask` spends here at start."""
    label = case(
        (SPANS.c.branch > 0, cast(SPANS.c.number, String) + "의" + cast(SPANS.c.branch, String)),
        else_=cast(SPANS.c.number, String),
    )
    newest = (select(VERSIONS.c.act_id, func.max(VERSIONS.c.sequence).label("sequence"))
              .group_by(VERSIONS.c.act_id).subquery())
    ever: dict[int, list[str]] = {}
    latest: dict[int, list[str]] = {}
    for act_id, any_version, newest_version in connection.execute(
            select(SPANS.c.act_id, func.aggregate_strings(label, " "),
                   func.aggregate_strings(case((SPANS.c.last == newest.c.sequence, label)), " "))
            .join(newest, newest.c.act_id == SPANS.c.act_id).where(~SPANS.c.deleted).group_by(SPANS.c.act_id)):
        ever[act_id] = any_version.split(" ")
        latest[act_id] = newest_version.split(" ") if newest_version else []
    repealed = set(connection.execute(
        select(VERSIONS.c.act_id).join(newest, and_(newest.c.act_id == VERSIONS.c.act_id,
                                                    newest.c.sequence == VERSIONS.c.sequence))
        .where(~standing())).scalars())
    labels: dict[str, list[str]] = {}
    for act_id, name in connection.execute(select(VERSIONS.c.act_id, VERSIONS.c.name).distinct()):
        if not spellable_name(name):
            continue  # 「대한민국 법원의 날」제정에 관한 규칙: a name the statute grammar cannot spell
        found = (latest if name in current and act_id not in repealed else ever).get(act_id, [])
        if found:
            labels[name] = sorted(set(labels.get(name, [])) | set(found), key=_sort_key)
    return labels


def _sort_key(label: str) -> tuple[int, int]:
    number, _, branch = label.partition("의")
    return int(number), int(branch or 0)


def _article_labels(database: Database) -> tuple[dict[str, list[str] | None], dict[str, tuple[str, bool]]]:
    """({act name: labels or None}, {alias: (act name, official)}) for aliases naming one act."""
    with database.snapshot() as connection:  # an alias read after an act it names was committed: KeyError
        names = {row.id: row.name for row in connection.execute(select(ACTS.c.id, ACTS.c.name).order_by(ACTS.c.name))}
        articles = connection.execute(
            select(ARTICLES.c.act_id, ARTICLES.c.number, ARTICLES.c.branch, ARTICLES.c.status)
            .order_by(ARTICLES.c.act_id, ARTICLES.c.number, ARTICLES.c.branch)).all()
        alias_rows = connection.execute(select(ALIASES.c.alias, ALIASES.c.act_id, ALIASES.c.official)).all()
        with_history = set(connection.execute(select(VERSIONS.c.act_id).distinct()).scalars())
        history = _history_labels(connection, {names[act_id] for act_id in with_history})
    labels: dict[int, list[str]] = defaultdict(list)
    with_articles: set[int] = set()
    for act_id, number, branch, status in articles:
        with_articles.add(act_id)
        if status == "현행":
            labels[act_id].append(_label(number, branch))
    acts: dict[str, list[str] | None] = {}
    for act_id, name in names.items():
        if act_id in with_history:
            continue
        if not spellable_name(name):  # imported without a history (JSONL, law.go.kr): skipped as those are
            log.warning("leaving %r out of the lexicon: a name the statute grammar cannot spell", name)
            continue
        if act_id not in with_articles:
            acts[name] = None
        elif labels[act_id]:  # an act whose every article is deleted cannot be cited
            acts[name] = labels[act_id]
    acts.update(history)
    targets: dict[str, set[int]] = defaultdict(set)
    official: dict[str, bool] = {}
    for alias, act_id, is_official in alias_rows:
        targets[alias].add(act_id)
        official[alias] = official.get(alias, False) or is_official
    aliases = {alias: (names[next(iter(ids))], official[alias]) for alias, ids in targets.items()
               if len(ids) == 1 and alias not in acts and names[next(iter(ids))] in acts and spellable_name(alias)}
    # One string per distinct label (some 4,500 of the book's 190,000): marshal stores each once, so the
    # cache file reads back four times faster, and a label's hash is computed once for all its acts.
    shared: dict[str, str] = {}
    return {name: None if labels is None else [shared.setdefault(label, label) for label in labels]
            for name, labels in acts.items()}, aliases


_Labels = tuple[dict[str, list[str] | None], dict[str, tuple[str, bool]]]


def _checked_article_labels(database: Database) -> tuple[dict[str, list[str] | None], dict[str, tuple[str, bool]], str]:
    """`_article_labels(database)` and the digest of the Lexicon built of them ("" for none, or for names a
    Lexicon rejects): built here, so what is stored with a digest was checked (names and labels a grammar
    can spell) and need not be checked again."""
    acts, aliases = _article_labels(database)
    try:
        return acts, aliases, _build(acts, aliases).digest if acts else ""
    except LexiconError:  # stored unchecked: build_lexicon builds it again and raises, lexicon_data need not
        return acts, aliases, ""


def _cached_article_labels(database: Database, cache_dir: Path | None) -> tuple[_Labels, str]:
    """`_checked_article_labels(database)`, from `cache_dir` when this state of the database was read
    before (by this module and grammars' Lexicon, whose checks it passed). Without `cache_dir` nothing is
    stored, so nothing is checked for it: `build_lexicon` checks as it builds, `lexicon_data` need not."""
    if cache_dir is None:
        return _article_labels(database), ""
    sources = (Path(__file__), Path(inspect.getfile(Lexicon)))
    acts, aliases, digest = read_through(database, cache_dir, "lexicon", sources,
                                         lambda: _checked_article_labels(database))
    return (acts, aliases), digest


def _build(acts: dict[str, list[str] | None], aliases: dict[str, tuple[str, bool]], digest: str = "") -> Lexicon:
    """`Lexicon.build`, or, given the digest of that build, `Lexicon.rebuilt` without its checks."""
    official = {alias: name for alias, (name, is_official) in aliases.items() if is_official}
    informal = {alias: name for alias, (name, is_official) in aliases.items() if not is_official}
    if digest:
        return Lexicon.rebuilt(acts, official, informal, digest)
    return Lexicon.build(acts, aliases=official, informal=informal)


def lexicon_data(database: Database, cache_dir: Path | None = None) -> dict[str, list[str] | None]:
    """`{act name or 약칭: [existing article labels] or None}`, JSON-ready. With `cache_dir`, read
    through the cache (above)."""
    (acts, aliases), _digest = _cached_article_labels(database, cache_dir)
    return _as_data(acts, aliases)


def build_lexicon(database: Database, cache_dir: Path | None = None) -> Lexicon | None:
    """The database's names as a `grammars.Lexicon`; None when it holds no act a citation could
    name (an empty or cases-only database), since a lexicon needs at least one. With `cache_dir`,
    read through the cache (above); the names and labels were checked when they were stored."""
    (acts, aliases), digest = _cached_article_labels(database, cache_dir)
    return _build(acts, aliases, digest) if acts else None


def read_lexicon(database: Database, cache_dir: Path | None = None
                 ) -> tuple[Lexicon | None, dict[str, list[str] | None]]:
    """`build_lexicon` and `lexicon_data` of one reading of the database: read apart, an import committing
    between them gave a service a language of one state and names of another."""
    (acts, aliases), digest = _cached_article_labels(database, cache_dir)
    return (_build(acts, aliases, digest) if acts else None), _as_data(acts, aliases)


def _as_data(acts: dict[str, list[str] | None], aliases: dict[str, tuple[str, bool]]) -> dict[str, list[str] | None]:
    return {**acts, **{alias: acts[name] for alias, (name, _official) in aliases.items()}}
