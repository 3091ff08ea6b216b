"""A synthetic corpus of Korean legal Q&A in chat form, generated from the law data (the real
statute book's acts in force, the sample decisions).

Answers cite statutes and decisions. Most citations are rendered by grammars' value types
(`CaseCitation.canonical()`, `StatuteCitation.canonical()`: the one definition of a citation); a
share (`messy_rate`) is written the way real drafts and real models get it wrong: court
abbreviations, missing dots, spaced case numbers, a wrong day, an article the act does not have.
A model trained on it produces malformed citations now and then when unconstrained, which is what
the constrained decoder is for. Everything is drawn from one `random.Random(seed)`, and the data is
read in sorted order, so the same seed and data give the same corpus.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from citegen.training.errors import TrainingDataError, TrainingError
from citegen.training.sources import Act, Article, Decision, LawData
from grammars import COURTS_BY_NAME, CaseCitation, ParsedCitation, StatuteCitation

CANONICAL = "canonical"
SYSTEM_PROMPT = "당신은 한국 법령과 판례를 근거로 답하는 법률 정보 도우미입니다. 답변은 법률 자문이 아닙니다."

_CLOSINGS = (
    "구체적인 사안에 따라 결론이 달라질 수 있으므로 변호사와 상담하시기 바랍니다.",
    "다만 개별 사건의 사실관계에 따라 판단이 달라질 수 있습니다.",
    "실제 분쟁에서는 최신 법령과 판례를 다시 확인하시기 바랍니다.",
    "",
)
# Korean readings of digits end in a vowel (2 이, 4 사, 5 오, 9 구) or a consonant (the rest).
_DIGIT_HAS_FINAL = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False,
                    "6": True, "7": True, "8": True, "9": False}


@dataclass(frozen=True, slots=True)
class CitationUse:
    """A citation as it was written in an answer, with the record it was made from.

    `form` is CANONICAL when `text == source.canonical()`; otherwise it names how it went wrong.
    """

    text: str
    source: ParsedCitation
    form: str


@dataclass(frozen=True, slots=True)
class Sample:
    question: str
    answer: str
    citations: tuple[CitationUse, ...]  # those of the answer
    system: str | None = None
    asked: CitationUse | None = None  # the citation the question was written with, if any

    def messages(self) -> list[dict[str, str]]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return system + [{"role": "user", "content": self.question},
                         {"role": "assistant", "content": self.answer}]


def josa(word: str, after_consonant: str, after_vowel: str) -> str:
    """The particle that follows `word`: 은/는, 이/가, 을/를, 과/와 by its last sound."""
    last = word.rstrip(")]」 ")[-1:]
    if "가" <= last <= "힣":
        has_final = (ord(last) - ord("가")) % 28 != 0
    else:
        has_final = _DIGIT_HAS_FINAL.get(last, False)
    return word + (after_consonant if has_final else after_vowel)


class CitationWriter:
    """Writes a citation canonically, or with probability `messy_rate` in a messy or wrong form."""

    def __init__(self, rng: random.Random, messy_rate: float, data: LawData) -> None:
        self._rng = rng
        self._messy_rate = messy_rate
        self._abbreviations: dict[str, list[str]] = defaultdict(list)
        for act in data.acts:
            if act.short_name and act.short_name != act.name:
                self._abbreviations[act.name].append(act.short_name)
        for alias, name in data.aliases.items():
            self._abbreviations[name].append(alias)
        self._highest_article = {act.name: act.highest_article for act in data.acts}

    def case(self, citation: CaseCitation, messy_rate: float | None = None) -> CitationUse:
        if self._rng.random() >= (self._messy_rate if messy_rate is None else messy_rate):
            return CitationUse(citation.canonical(), citation, CANONICAL)
        forms: list[Callable[[CaseCitation], str]] = [
            _compact_date, _no_final_dot, _court_and_number, _spaced_number, _commas, self._wrong_day,
        ]
        if citation.court == "대법원":
            forms.append(_supreme_court_short)
        if COURTS_BY_NAME.get(citation.court or "") and COURTS_BY_NAME[citation.court or ""].abbreviations:
            forms.append(_court_abbreviation)
        form = self._rng.choice(forms)
        return CitationUse(form(citation), citation, form.__name__.strip("_"))

    def statute(self, citation: StatuteCitation, messy_rate: float | None = None) -> CitationUse:
        if self._rng.random() >= (self._messy_rate if messy_rate is None else messy_rate):
            return CitationUse(citation.canonical(), citation, CANONICAL)
        forms: list[Callable[[StatuteCitation], str]] = [_compact_provision, _quoted_act, self._missing_article]
        if self._abbreviations.get(citation.act or ""):
            forms.append(self._abbreviated_act)
        form = self._rng.choice(forms)
        return CitationUse(form(citation), citation, form.__name__.strip("_"))

    def _wrong_day(self, citation: CaseCitation) -> str:
        assert citation.date is not None  # a record of the data always has its date
        shift = dt.timedelta(days=self._rng.choice((-3, -2, -1, 1, 2, 3)))
        return dataclasses.replace(citation, date=citation.date + shift).canonical()

    def _missing_article(self, citation: StatuteCitation) -> str:
        beyond = self._highest_article[citation.act or ""] + self._rng.randint(1, 300)
        return dataclasses.replace(citation, article=beyond, article_branch=None).canonical()

    def _abbreviated_act(self, citation: StatuteCitation) -> str:
        return f"{self._rng.choice(self._abbreviations[citation.act or ''])} {citation.provision()}"


def _about(article: Article) -> str:
    return f"{article.title}에 관하여 " if article.title else ""


def _holding(decision: Decision) -> str:
    """` 이 판례는 …에 관하여 판단하였습니다.` from the first point of 판시사항 (a noun phrase)."""
    point = decision.holding.split(" [2]")[0].rstrip(" .")
    return f" 이 판례는 {point}에 관하여 판단하였습니다." if point else ""


def _dotted_date(citation: CaseCitation) -> str:
    assert citation.date is not None
    return f"{citation.date.year}.{citation.date.month}.{citation.date.day}"


def _tail(citation: CaseCitation) -> str:
    """`2024도4202 전원합의체 판결`: what follows the date in a canonical citation."""
    return citation.canonical().split(" 선고 ", 1)[-1].split("자 ", 1)[-1]


def _compact_date(citation: CaseCitation) -> str:
    when = " 선고" if citation.delivery == "선고" else "자"
    return f"{citation.court} {_dotted_date(citation)}.{when} {_tail(citation)}"


def _no_final_dot(citation: CaseCitation) -> str:
    assert citation.date is not None
    when = " 선고" if citation.delivery == "선고" else "자"
    return f"{citation.court} {citation.date.year}. {citation.date.month}. {citation.date.day}{when} {_tail(citation)}"


def _court_and_number(citation: CaseCitation) -> str:
    return f"{citation.court} {citation.case_number}"


def _spaced_number(citation: CaseCitation) -> str:
    number = citation.case_number
    return citation.canonical().replace(str(number), f"{str(number).removesuffix(f'{number.code}{number.serial}')} "
                                        f"{number.code} {number.serial}")


def _commas(citation: CaseCitation) -> str:
    assert citation.date is not None
    return f"[{citation.court} {citation.date.year}. {citation.date.month}. {citation.date.day}., " \
           f"{citation.delivery}, {citation.case_number}, {citation.disposition}]"


def _supreme_court_short(citation: CaseCitation) -> str:
    short = "대판" if citation.disposition == "판결" else "대결"
    return f"{short} {_dotted_date(citation)}, {citation.case_number}"


def _court_abbreviation(citation: CaseCitation) -> str:
    court = COURTS_BY_NAME[citation.court or ""]
    return citation.canonical().replace(court.name, court.abbreviations[0], 1)


def _compact_provision(citation: StatuteCitation) -> str:
    return f"{citation.act}{citation.provision().replace(' ', '')}"


def _quoted_act(citation: StatuteCitation) -> str:
    return f"「{citation.act}」 {citation.provision().replace(' ', '')}"


class CorpusGenerator:
    """Draws samples of five kinds: explain an article, explain a decision, link a decision to the
    articles it applied, compare two articles of an act, follow an article's reference to another
    article (the references its text makes). ~`think_rate` of answers open with a `<think>` block."""

    def __init__(self, data: LawData, seed: int, messy_rate: float = 0.15, think_rate: float = 0.25,
                 system_rate: float = 0.2, asked_messy_rate: float = 0.4, mirror_rate: float = 0.6) -> None:
        shares = {"messy_rate": messy_rate, "think_rate": think_rate, "system_rate": system_rate,
                  "asked_messy_rate": asked_messy_rate, "mirror_rate": mirror_rate}
        for name, share in shares.items():
            if not 0.0 <= share <= 1.0:  # NaN included
                raise TrainingError(f"expected {name} between 0 and 1, got {share}")
        self._data = data
        self._rng = random.Random(seed)
        self._writer = CitationWriter(self._rng, messy_rate, data)
        self._think_rate = think_rate
        self._system_rate = system_rate
        self._asked_messy_rate = asked_messy_rate
        self._mirror_rate = mirror_rate
        self._articles = {(act.name, article.number, article.branch): article
                          for act in data.acts for article in act.articles}
        self._decisions_by_article: dict[tuple[str, int, int | None], list[Decision]] = defaultdict(list)
        for decision in data.decisions:
            for statute in decision.statutes:
                key = (statute.act or "", statute.article or 0, statute.article_branch)
                self._decisions_by_article[key].append(decision)
        self._linked = [d for d in data.decisions if any(self._article_of(s) for s in d.statutes)]
        # Legal questions ask about the articles decisions apply: featuring them concentrates a tiny
        # model on what it is asked (the statute book's thousands of other articles are all real
        # text, so "has real text" alone would feature every one). Without such articles, those
        # with real text rather than the sample data's placeholders.
        applied = [(act, article) for act in data.acts for article in act.articles
                   if (act.name, article.number, article.branch) in self._decisions_by_article]
        self._featured = applied or [(act, article) for act in data.acts for article in act.articles
                                     if not article.is_placeholder]
        self._referring = [(act, article, tuple((target, self._referred(act, article, target))
                                                for target in article.references))
                           for act in data.acts for article in act.articles if article.references]

    def samples(self, count: int) -> Iterator[Sample]:
        if count < 0:
            raise TrainingError(f"expected a number of samples ≥ 0, got {count}")
        kinds = (self._explain_article, self._explain_decision, self._link_decision, self._compare_articles,
                 self._follow_reference)
        weights = (0.35, 0.2, 0.2 if self._linked else 0.0, 0.1, 0.15 if self._referring else 0.0)
        return (self._rng.choices(kinds, weights)[0]() for _ in range(count))

    def _article_of(self, statute: StatuteCitation) -> Article | None:
        return self._articles.get((statute.act or "", statute.article or 0, statute.article_branch))

    def _referred(self, act: Act, article: Article, target: StatuteCitation) -> Article:
        referred = self._article_of(target)
        if referred is None:  # sources resolves references against the articles it keeps
            raise TrainingDataError(f"expected {act.cite(article).canonical()} to refer to articles of the "
                                    f"corpus's acts, got {target.canonical()}, which is not one")
        return referred

    def _finish(self, question: str, body: str, uses: list[CitationUse], thought: str,
                asked: CitationUse | None = None) -> Sample:
        closing = self._rng.choice(_CLOSINGS)
        answer = f"{body} {closing}".strip()
        if self._rng.random() < self._think_rate:
            answer = f"<think>{thought}</think>\n{answer}"
        system = SYSTEM_PROMPT if self._rng.random() < self._system_rate else None
        return Sample(question, answer, tuple(uses), system, asked if asked and asked.text in question else None)

    def _answer_as_asked(self, asked: CitationUse, write: Callable[[], CitationUse]) -> CitationUse:
        """Answers echo how the question wrote a citation, as models do: a messy form asked is
        often a messy form answered, so some prompts make even greedy output malformed."""
        if asked.form != CANONICAL and self._rng.random() < self._mirror_rate:
            return asked
        return write()

    def _pick_article(self, featured_rate: float = 0.6) -> tuple[Act, Article]:
        if self._featured and self._rng.random() < featured_rate:
            return self._rng.choice(self._featured)
        act = self._rng.choice(self._data.acts)
        return act, self._rng.choice(act.articles)

    def _explain_article(self) -> Sample:
        act, article = self._pick_article()
        source = act.cite(article)
        asked = self._writer.statute(source, self._asked_messy_rate)
        use = self._answer_as_asked(asked, lambda: self._writer.statute(source))
        questions = [f"{josa(asked.text, '은', '는')} 어떤 내용인가요?"]
        if article.title:
            questions += [f"{article.title}에 관한 규정을 알려 주세요.", f"{article.title}의 요건은 무엇인가요?",
                          f"{act.name}상 {article.title}에 대해 설명해 주세요."]
        question = self._rng.choice(questions)
        body = f"{josa(use.text, '은', '는')} {_about(article)}다음과 같이 규정합니다. {article.text}"
        uses = [use]
        decisions = self._decisions_by_article.get((act.name, article.number, article.branch), [])
        if decisions:
            decision = self._rng.choice(decisions)
            case = self._writer.case(decision.citation)
            uses.append(case)
            body += f" 관련 판례로 {josa(case.text, '이', '가')} 있습니다."
            body += _holding(decision)
        thought = f"질문은 {article.title or act.name}에 관한 것이다. {act.name} {article.number}조를 확인한다."
        return self._finish(question, body, uses, thought, asked)

    def _explain_decision(self) -> Sample:
        decision = self._rng.choice(self._data.decisions)
        number = decision.citation.case_number
        asked = self._writer.case(decision.citation, self._asked_messy_rate)
        questions = (
            f"{decision.name} 사건에 관한 판례를 알려 주세요.",
            f"{number} 사건에서 법원은 어떻게 판단했나요?",
            f"{josa(decision.citation.court or '', '이', '가')} {decision.name} 사건에서 내린 판단을 설명해 주세요.",
            f"{asked.text}의 요지를 알려 주세요.",
        )
        question = self._rng.choice(questions)
        case = (self._answer_as_asked(asked, lambda: self._writer.case(decision.citation))
                if question == questions[-1] else self._writer.case(decision.citation))
        body = f"{josa(case.text, '은', '는')} {decision.name} 사건에 관한 {decision.citation.disposition}입니다."
        body += _holding(decision)
        uses = [case]
        statutes = [self._writer.statute(s) for s in decision.statutes[:2] if self._article_of(s)]
        if statutes:
            uses += statutes
            body += f" 이 사건에서는 {josa(', '.join(s.text for s in statutes), '이', '가')} 적용되었습니다."
        thought = f"{number} 사건의 법원, 선고일, 사건번호를 확인하고 판시사항을 요약한다."
        return self._finish(question, body, uses, thought, asked)

    def _link_decision(self) -> Sample:
        decision = self._rng.choice(self._linked)
        statute = next(s for s in decision.statutes if self._article_of(s))
        article = self._article_of(statute)
        assert article is not None  # chosen from self._linked
        asked = self._writer.statute(statute, self._asked_messy_rate)
        case = self._writer.case(decision.citation)
        topic = article.title or statute.canonical()
        questions = (
            f"{josa(topic, '과', '와')} 관련하여 참고할 판례가 있나요?",
            f"{decision.name} 사건에서 {josa(topic, '은', '는')} 어떻게 적용되나요?",
            f"{josa(asked.text, '이', '가')} 적용된 판례를 알려 주세요.",
        )
        question = self._rng.choice(questions)
        statute_use = (self._answer_as_asked(asked, lambda: self._writer.statute(statute))
                       if question == questions[-1] else self._writer.statute(statute))
        body = f"{josa(statute_use.text, '은', '는')} {_about(article)}다음과 같이 규정합니다. " \
               f"{article.text} 이 조문이 적용된 판례로 {josa(case.text, '이', '가')} 있습니다."
        body += _holding(decision)
        thought = f"{statute.act} {article.number}조가 참조조문으로 나오는 {decision.name} 사건을 찾는다."
        return self._finish(question, body, [statute_use, case], thought, asked)

    def _compare_articles(self) -> Sample:
        act, first = self._pick_article()
        titled = [a for a in act.articles if a.title and a != first]
        if not first.title or not titled:
            return self._explain_article()
        second = self._rng.choice(titled)
        one, other = self._writer.statute(act.cite(first)), self._writer.statute(act.cite(second))
        question = f"{act.name}에서 {josa(first.title, '과', '와')} {josa(second.title, '은', '는')} 어떻게 다른가요?"
        body = f"{josa(one.text, '은', '는')} {first.title}에 관한 조문으로, {first.text} " \
               f"반면 {josa(other.text, '은', '는')} {josa(second.title, '을', '를')} 정합니다. {second.text}"
        thought = f"{act.name}의 두 조문을 나란히 놓고 비교한다."
        return self._finish(question, body, [one, other], thought)

    def _follow_reference(self) -> Sample:
        act, article, references = self._rng.choice(self._referring)
        target, referred = self._rng.choice(references)
        source = act.cite(article)
        asked = self._writer.statute(source, self._asked_messy_rate)
        use = self._answer_as_asked(asked, lambda: self._writer.statute(source))
        other = self._writer.statute(target)
        question = self._rng.choice((f"{josa(asked.text, '이', '가')} 언급하는 조문은 무엇인가요?",
                                     f"{josa(asked.text, '과', '와')} 함께 보아야 할 조문을 알려 주세요."))
        body = f"{josa(use.text, '은', '는')} {_about(article)}다음과 같이 규정합니다. {article.text} " \
               f"이 조문은 {josa(other.text, '을', '를')} 언급하는데, {josa(other.text, '은', '는')} " \
               f"{_about(referred)}다음과 같이 규정합니다. {referred.text}"
        thought = f"{source.canonical()}의 본문에서 다른 조문을 가리키는 부분을 찾아 그 조문을 확인한다."
        return self._finish(question, body, [use, other], thought, asked)


def write_corpus(samples: list[Sample], path: Path) -> None:
    """One JSON object per line: the chat messages and the citations each answer carries."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for sample in samples:
            record = {
                "messages": sample.messages(),
                "citations": [{"text": use.text, "form": use.form, "canonical": use.source.canonical()}
                              for use in sample.citations],
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
