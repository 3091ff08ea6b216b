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


DECLARED_WITH_A_VERSION = ("구 「상가건물 임대차보호법」(2018. 10. 16. 법률 제15791호로 개정되기 전의 것, "
                           "이하 ‘구 상가임대차법’이라고 한다) 제10조의4의 문언과 내용, 입법 취지에 비추어 보면 ")


# 상가건물 임대차보호법 with the articles the texts cite (the finder knows 상가임대차법 as its informal name)
LEASE_ACT = [{"type": "act", "law_id": "009311", "name": "상가건물 임대차보호법", "kind": "법률",
              "articles": [{"article": "10", "provisions": [{"paragraph": 1}, {"paragraph": 2}]},
                           {"article": "10의4", "provisions": [{"paragraph": 1}, {"paragraph": 1, "item": 4}]}]}]


def test_a_short_name_declared_with_a_version_cites_that_version(database_url_of) -> None:
    """p188, a law firm's note on a judgment: `구 상가임대차법` declared with the note of the version before the
    2018 amendment, written again without it, cites that version; it was rewritten as the act with 구 alone,
    which names no version."""
    text = DECLARED_WITH_A_VERSION + "구 상가임대차법 제10조의4 제1항 제4호에서 정한 정당한 사유가 있다고 볼 수 없다."
    outcomes = recited(database_url_of(LEASE_ACT), text)
    assert outcomes[-1][:2] == ("구 상가임대차법 제10조의4 제1항 제4호", "구 상가건물 임대차보호법(2018. 10. 16. 법률 "
                                "제15791호로 개정되기 전의 것) 제10조의4 제1항 제4호"), outcomes


def test_a_declared_short_name_written_with_a_note_of_its_own_keeps_it(database_url_of) -> None:
    text = DECLARED_WITH_A_VERSION + ("구 상가임대차법(2013. 8. 13. 법률 제12042호로 개정되기 전의 것) 제10조 제1항은 "
                                      "달리 정하였다.")
    outcomes = recited(database_url_of(LEASE_ACT), text)
    assert "2013. 8. 13. 법률 제12042호" in (outcomes[-1][1] or ""), outcomes
    assert "15791" not in (outcomes[-1][1] or ""), outcomes
