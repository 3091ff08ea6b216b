"""The corpus's acts from the real statute book: a bundle of real data/law lines (민법, both
근로기준법 — the one in force and the repealed one of 1953 —, 산업안전보건법 and 국가배상법), read
with the verifier's reader through the composition root, then chosen and read by the training sources."""

from __future__ import annotations

import datetime as dt
import json
import lzma
from pathlib import Path

import pytest

from citegen.commands.statute_book import StatuteBook, bundle_in, read_statute_book
from citegen.training.corpus import CANONICAL, CorpusGenerator
from citegen.training.errors import TrainingDataError
from citegen.training.sources import Act, Article, ArticleText, book_acts, law_data
from grammars import StatuteCitation

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "data" / "law" / "statute-book.book.jsonl.xz"
NAMES = {"민법", "근로기준법", "산업안전보건법", "국가배상법"}
ON = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = []
    with lzma.open(SHIPPED, "rt", encoding="utf-8") as shipped:
        for line in shipped:
            if any(f'"{name}"' in line for name in NAMES) and \
                    {version[1] for version in json.loads(line)["versions"]} & NAMES:
                lines.append(line)
    folder = tmp_path_factory.mktemp("law")
    with lzma.open(folder / "statute-book.book.jsonl.xz", "wt", encoding="utf-8") as out:
        out.writelines(lines)
    return folder / "statute-book.book.jsonl.xz"


@pytest.fixture(scope="module")
def book(bundle: Path) -> StatuteBook:
    return read_statute_book(bundle, ON)


@pytest.fixture(scope="module")
def acts(book: StatuteBook) -> dict[str, Act]:
    chosen = book_acts(book, others=1, seed=0, core=("민법", "근로기준법", "산업안전보건법"))
    return {act.name: act for act in chosen}


def _article(act: Act, number: int, branch: int | None = None) -> Article:
    return next(a for a in act.articles if (a.number, a.branch) == (number, branch))


def test_the_bundle_is_found_in_its_folder(bundle: Path) -> None:
    assert bundle_in(bundle.parent) == bundle
    assert bundle_in(REPO / "data" / "synthetic_law") is None


def test_the_book_holds_the_acts_in_force_and_not_the_repealed_namesake(book: StatuteBook) -> None:
    assert set(book) == NAMES
    kind, articles = book["근로기준법"]
    assert kind == "법률"
    dismissal = next(a for a in articles if (a.number, a.branch) == (23, 0))
    assert dismissal.title == "해고 등의 제한"  # the 1953 act's 제23조 is about something else
    assert len(articles) > 100


def test_articles_keep_their_real_title_and_what_their_text_says(acts: dict[str, Act]) -> None:
    tort = _article(acts["민법"], 750)
    assert tort.title == "불법행위의 내용"
    assert tort.text == "고의 또는 과실로 인한 위법행위로 타인에게 손해를 가한 자는 그 손해를 배상할 책임이 있다."
    definitions = _article(acts["근로기준법"], 2)
    assert definitions.text == "이 법에서 사용하는 용어의 뜻은 다음과 같다."  # `<개정 2018.3.20, …>` is no law text
    assert definitions.paragraphs == 2
    assert all("<개정" not in a.text and "**" not in a.text and "\\." not in a.text
               for act in acts.values() for a in act.articles)


def test_deleted_articles_are_left_out(acts: dict[str, Act]) -> None:
    numbers = {(a.number, a.branch) for a in acts["민법"].articles}
    assert (750, None) in numbers and (778, None) not in numbers  # 제778조 (호주의 정의) 삭제 <2005. 3. 31.>


def test_references_of_the_text_are_resolved_to_live_articles(acts: dict[str, Act]) -> None:
    labour = acts["근로기준법"]
    # 제2조 ① 8. "… 제50조, 제69조 본문 또는 「산업안전보건법」 제139조제1항에 따른 근로시간 …"
    assert {StatuteCitation("근로기준법", 50), StatuteCitation("근로기준법", 69),
            StatuteCitation("산업안전보건법", 139)} <= set(_article(labour, 2).references)
    assert StatuteCitation("근로기준법", 84) in _article(labour, 23).references  # "제84조에 따라 일시보상을"
    live = {(act.name, a.number, a.branch) for act in acts.values() for a in act.articles}
    every = [ref for act in acts.values() for a in act.articles for ref in a.references]
    assert len(every) > 500
    assert all((ref.act, ref.article, ref.article_branch) in live for ref in every)
    assert all(ref != act.cite(a) for act in acts.values() for a in act.articles for ref in a.references)


def test_other_acts_are_drawn_by_seed(book: StatuteBook, acts: dict[str, Act]) -> None:
    assert set(acts) == {"민법", "근로기준법", "산업안전보건법", "국가배상법"}
    assert book_acts(book, others=0, seed=0, core=("민법",))[0].name == "민법"
    with pytest.raises(TrainingDataError, match="expected 0 to 3 other acts"):
        book_acts(book, others=4, seed=0, core=("민법",))


def test_a_missing_core_act_is_named(book: StatuteBook) -> None:
    with pytest.raises(TrainingDataError, match="형법"):
        book_acts(book, others=0, seed=0, core=("민법", "형법"))


def test_a_truncated_bundle_is_refused_with_its_name(bundle: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.book.jsonl.xz"
    cut.write_bytes(bundle.read_bytes()[: len(bundle.read_bytes()) // 2])
    with pytest.raises(TrainingDataError, match=r"cut\.book\.jsonl\.xz"):
        read_statute_book(cut, ON)


def test_the_corpus_cites_real_provisions_with_their_text(acts: dict[str, Act]) -> None:
    data = law_data(tuple(acts.values()), REPO / "data" / "cases", REPO / "data" / "law" / "aliases.json")
    articles = {act.cite(a): a for act in data.acts for a in act.articles}
    samples = list(CorpusGenerator(data, seed=5).samples(400))
    statutes = [(use, sample) for sample in samples for use in sample.citations
                if isinstance(use.source, StatuteCitation) and use.form == CANONICAL]
    assert len(statutes) > 200
    assert all(use.source in articles for use, _ in statutes)
    explained = [sample for sample in samples if "다음과 같이 규정합니다" in sample.answer]
    assert len(explained) > 150
    for sample in explained:  # an answer that says what a provision says quotes its text (even when it
        # writes the citation messily: the source is the article the sentence is about)
        source = sample.citations[0].source
        assert isinstance(source, StatuteCitation) and articles[source].text in sample.answer, sample.answer
    followed = [sample for sample in samples if "언급하는데" in sample.answer]
    assert followed and all(len(sample.citations) == 2 for sample in followed)


def test_questions_about_an_article_feature_the_articles_decisions_apply(acts: dict[str, Act]) -> None:
    # A tiny model learns the articles it sees often; legal questions ask about those decisions apply.
    data = law_data(tuple(acts.values()), REPO / "data" / "cases", REPO / "data" / "law" / "aliases.json")
    articles = {act.cite(a) for act in data.acts for a in act.articles}
    applied = {statute for decision in data.decisions for statute in decision.statutes} & articles
    assert 0 < len(applied) < 0.05 * len(articles)
    samples = list(CorpusGenerator(data, seed=5).samples(400))
    explained = [sample.citations[0].source for sample in samples if "다음과 같이 규정합니다" in sample.answer
                 and "이 조문이 적용된 판례" not in sample.answer and "언급하는데" not in sample.answer]
    assert len(explained) > 100
    assert sum(source in applied for source in explained) > 0.5 * len(explained)


# 제751조 is deleted as a whole; 제752조's ① is deleted and its ② in force (as 폭력행위 등 처벌에 관한
# 법률 제2조 is in the real book), so 제752조 stays and a reference to it resolves.
HAND_BOOK: StatuteBook = {"민법": ("법률", [
    ArticleText(750, 0, "불법행위의 내용", "고의 또는 과실로 인한 위법행위로 타인에게 손해를 가한 자는 제751조 및 "
                                      "제752조에 따라 그 손해를 배상할 책임이 있다."),
    ArticleText(751, 0, None, "삭제 <2020. 1. 1.>"),
    ArticleText(752, 0, "생명침해로 인한 위자료", "**①** 삭제 <2016.1.6>\n\n**②** 타인의 생명을 해한 자는 피해자의 "
                                           "직계존속에 대하여 손해를 배상할 책임이 있다. <개정 2016.1.6>\n\n"
                                           "  1\\. 「형법」 제250조"),
])}


def test_an_article_whose_first_paragraph_is_deleted_is_kept_with_the_next_one() -> None:
    (civil,) = book_acts(HAND_BOOK, others=0, seed=0, core=("민법",))
    assert [(a.number, a.text, a.paragraphs) for a in civil.articles] == [
        (750, HAND_BOOK["민법"][1][0].text, 0),
        (752, "타인의 생명을 해한 자는 피해자의 직계존속에 대하여 손해를 배상할 책임이 있다.", 2),
    ]


def test_references_resolve_to_the_articles_the_corpus_keeps(tmp_path: Path) -> None:
    acts = book_acts(HAND_BOOK, others=0, seed=0, core=("민법",))
    assert _article(acts[0], 750).references == (StatuteCitation("민법", 752),)  # not the deleted 제751조
    data = law_data(acts, REPO / "data" / "cases", tmp_path / "no-aliases.json")
    followed = [s for s in CorpusGenerator(data, seed=0).samples(200) if "언급하는데" in s.answer]
    assert followed and all(s.citations[1].source == StatuteCitation("민법", 752) for s in followed)


def test_a_core_act_without_an_article_in_force_is_named() -> None:
    notes_only = ArticleText(1, 0, "범죄의 성립과 처벌", "<개정 2020. 12. 8.>")  # an editorial note is no text
    book: StatuteBook = {**HAND_BOOK, "형법": ("법률", [notes_only])}
    with pytest.raises(TrainingDataError, match="expected 형법 to have an article in force with text, got none"):
        book_acts(book, others=0, seed=0, core=("민법", "형법"))
