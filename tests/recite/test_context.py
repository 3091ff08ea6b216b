"""Re-citation reads the text between citations as the resolver does (`DocumentResolver.resolve_found`): a
back-reference outside an aside refers past the citations inside it, and a short name declared in prose
stands for its act. The batch handed the resolver each citation alone, and both were lost."""

from __future__ import annotations

from citegen.commands.recite_wiring import build_pipeline
from citegen.recite.documents import PlainTextDocument


def recited(database_url: str, *texts: str) -> list[tuple[str, str | None, str]]:
    document = PlainTextDocument(texts, "utf-8", "draft")
    return [(o.original, o.canonical, o.action) for o in build_pipeline(database_url, None).recite(document).outcomes]


def test_a_back_reference_after_an_aside_refers_past_the_citations_inside_it(shipped_database_url: str) -> None:
    text = "「근로기준법」 제23조제1항(같은 법 제24조제5항에서 준용되는 경우를 포함한다), 같은 조 제2항에 따라"
    outcomes = recited(shipped_database_url, text)
    assert outcomes[-1][:2] == ("같은 조 제2항", "근로기준법 제23조 제2항"), outcomes


def test_a_short_name_declared_in_prose_stands_for_its_act(shipped_database_url: str) -> None:
    text = "「근로기준법」(이하 “법”이라 한다)이 적용되는 사업장에서는 법 제23조제1항에 따라 해고가 제한된다."
    outcomes = recited(shipped_database_url, text)
    assert outcomes[-1][:2] == ("법 제23조제1항", "근로기준법 제23조 제1항"), outcomes


def test_each_stream_of_a_document_is_read_from_its_start(shipped_database_url: str) -> None:
    """A document's streams (a .docx's parts) are texts of their own: an aside left open in one does not
    reach into the next."""
    first = "「근로기준법」 제23조제1항(같은 법 제24조제1항에서"
    second = "같은 조 제2항에 따라"
    outcomes = recited(shipped_database_url, first, second)
    assert outcomes[-1][:2] == ("같은 조 제2항", "근로기준법 제24조 제2항"), outcomes


def test_a_text_read_again_is_read_from_its_start(shipped_database_url: str) -> None:
    """A review: the same string object as a second stream resumed where the first ended, so the text before
    its first citation was never read (`제26조 … 같은 조 제2항` resolved past `제26조`); an equal copy did not."""
    text = "제26조에 정한 바와 같이 같은 조 제2항에 따라 「근로기준법」 제23조제1항을 본다."
    copy = "".join(list(text))
    assert copy is not text
    assert recited(shipped_database_url, text, text) == recited(shipped_database_url, text, copy)
