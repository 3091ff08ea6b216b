"""Finding articles by title and text (`citegen-admin search`) in the real history fixture, on both
backends: the version in force on the day is searched, title hits come first."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from typer.testing import CliRunner

from verifier.admin import ArticleHit, find_acts, find_articles
from verifier.cli import app
from verifier.database import Database

TODAY = dt.date(2026, 12, 1)


def test_title_and_text_hits_of_the_version_in_force(book: Database) -> None:
    hits = find_articles(book, "해고", 100, TODAY)
    found = {(hit.act, hit.article): hit for hit in hits}
    restriction = found["근로기준법", "제23조"]
    assert restriction.title == "해고 등의 제한" and restriction.in_title
    assert "정당한 이유 없이 해고" in restriction.snippet and "**" not in restriction.snippet
    assert found["근로기준법", "제27조"].title == "해고사유 등의 서면통지"  # today's 제27조, not 1990's
    ranks = [hit.in_title for hit in hits]
    assert ranks == sorted(ranks, reverse=True), "title hits first"
    lengths = [len(hit.title or "") for hit in hits if hit.in_title]
    assert lengths == sorted(lengths), "the shorter title, closer to the query, first"
    text_hits = [hit for hit in hits if not hit.in_title]
    assert text_hits and all("해고" in hit.snippet and "해고" not in (hit.title or "") for hit in text_hits)
    assert all(hit.act != "근로기준법" or hit.article != "제27조의2" for hit in hits)  # the 1953 act's, repealed


def test_an_earlier_day_searches_the_version_then_in_force(book: Database) -> None:
    then = {(hit.act, hit.article): hit for hit in find_articles(book, "해고", 100, dt.date(1990, 1, 1))}
    assert then["근로기준법", "제27조"].title == "해고등의 제한"


@pytest.mark.parametrize(("query", "expected"), [
    ("근로기준법 제23조", [ArticleHit("근로기준법", "제23조", "해고 등의 제한", "", False)]),
    ("%_%", []),
    ("어떤 법에도 없는 말", []),
], ids=["article-label", "like-wildcards-taken-literally", "no-hit"])
def test_queries(book: Database, query: str, expected: list[ArticleHit]) -> None:
    hits = find_articles(book, query, 20, TODAY)
    assert [(hit.act, hit.article, hit.title, hit.in_title) for hit in hits] == \
        [(hit.act, hit.article, hit.title, hit.in_title) for hit in expected]


def test_acts_by_words_of_their_name(book: Database) -> None:
    assert "근로기준법" in {row["name"] for row in find_acts(book, "근로기준", 20)}
    assert find_acts(book, "%", 20) == []


def test_limit_keeps_the_best_ranked(book: Database) -> None:
    everything = find_articles(book, "해고", 1000, TODAY)
    assert find_articles(book, "해고", 3, TODAY) == everything[:3]


@pytest.mark.parametrize("query", ["", "   "], ids=["empty", "blank"])
def test_empty_query_is_refused(book: Database, query: str) -> None:
    with pytest.raises(ValueError, match="empty query"):
        find_articles(book, query, 20, TODAY)


def test_cli_json(book_url: str) -> None:
    result = CliRunner().invoke(app, ["search", "해고", "--kind", "articles", "--limit", "5", "--json",
                                      "--database-url", book_url])
    assert result.exit_code == 0, result.output
    articles = json.loads(result.stdout)["articles"]
    assert len(articles) == 5 and {"act", "article", "title", "snippet", "in_title"} <= set(articles[0])
    assert {"act": "근로기준법", "article": "제23조"}.items() <= next(
        row for row in articles if row["article"] == "제23조").items()


@pytest.mark.parametrize("query", ["[/x]", "[bold]해고"], ids=["closing-tag", "opening-tag"])
def test_cli_shows_brackets_as_text(book_url: str, query: str) -> None:
    # a query or an article's text holding `[...]` (`[본조신설 2020.5.26]`) is data, never console markup
    result = CliRunner().invoke(app, ["search", query, "--database-url", book_url])
    assert result.exit_code == 0, result.output
    assert "nothing matches" in result.output and query in result.output
