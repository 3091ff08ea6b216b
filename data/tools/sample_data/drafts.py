"""Draft paragraphs (opinions, briefs) citing the sample data in messy forms, and their labels.

A draft is assembled piece by piece: plain text, then a citation written in some messy form; the
builder records each citation's span and the canonical form it must resolve to (None for the
few that cannot resolve). Every resolvable label is checked against the generated data here, so
a label can never point at a provision or case that is not in data/.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from grammars import StatuteCitation
from grammars.find import SAME_DECREE_KIND
from sample_data.acts import ACTS_BY_NAME, INFORMAL_ALIASES
from sample_data.cases import CaseRecord
from sample_data.messy import CASE_FORMS, full_width, provision_text
from sample_data.statutes import Act

_ALIAS_OF = {name: alias for alias, name in INFORMAL_ALIASES.items()}
# Particles that change with the preceding syllable: (after a final consonant, after a vowel).
_PARTICLES = {"이": ("이", "가"), "가": ("이", "가"), "은": ("은", "는"), "는": ("은", "는"), "을": ("을", "를"),
              "를": ("을", "를"), "과": ("과", "와"), "와": ("과", "와")}
_DIGITS_WITH_FINAL = set("013678")  # 영 일 삼 육 칠 팔 end in a consonant
# The 시행령/시행규칙 of the act cited before (`같은 법 시행령`), and the short names of a 시행령/시행규칙.
_DECREE_REFERENCES = ("같은 법 시행령", "같은 법 시행규칙", "동법 시행령", "동법 시행규칙")
# Back-references whose act the draft gives (reference §2.3): 같은 법/동법 a 법률, 동조/같은 조 the act cited
# before, 같은 법 시행령 that 법률's 시행령, 같은 영/동령/같은 시행규칙 the very 시행령/시행규칙 cited last.
_SAME_ACT = ("같은 법", "동법")
_BACK_REFERENCES = (*_SAME_ACT, "동조", "같은 조", *_DECREE_REFERENCES, *SAME_DECREE_KIND)
_SHORT_NAMES = ("영", "규칙")
# OCR misreadings of an article number: (digit, the letter read for it).
_LOOKALIKES = {"O for 0": ("0", "O"), "l for 1": ("1", "l")}


def _ends_in_consonant(text: str) -> bool:
    last = text[-1]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 != 0
    return last in _DIGITS_WITH_FINAL


def attach_particle(previous: str, text: str) -> str:
    """Make a particle at the start of `text` agree with `previous` (`제2항` + `가` -> `제2항이`)."""
    if not previous or not text or text[0] not in _PARTICLES or (len(text) > 1 and "가" <= text[1] <= "힣"):
        return text
    consonant_form, vowel_form = _PARTICLES[text[0]]
    return (consonant_form if _ends_in_consonant(previous) else vowel_form) + text[1:]


class LabelError(ValueError):
    """A draft template cites something the sample data does not hold."""


@dataclass
class Label:
    file: str
    original: str
    expected_canonical: str | None
    note: str
    span: tuple[int, int]

    def as_json(self) -> str:
        return json.dumps({"file": self.file, "original": self.original,
                           "expected_canonical": self.expected_canonical, "note": self.note,
                           "span": list(self.span)}, ensure_ascii=False)


@dataclass
class DraftBuilder:
    file: str
    acts: dict[str, Act]
    parts: list[str] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    last: StatuteCitation | None = None  # the last statute named, for 같은 법 / 동조
    cited: list[str] = field(default_factory=list)  # the acts of the statutes named, in order, for 같은 영

    @property
    def length(self) -> int:
        return sum(len(part) for part in self.parts)

    def text(self, text: str) -> DraftBuilder:
        after_citation = bool(self.labels) and self.labels[-1].span[1] == self.length
        self.parts.append(attach_particle(self.parts[-1], text) if after_citation else text)
        return self

    def _cite(self, written: str, expected: str | None, note: str) -> DraftBuilder:
        start = self.length
        self.parts.append(written)
        self.labels.append(Label(self.file, written, expected, note, (start, start + len(written))))
        return self

    def case(self, record: CaseRecord, form: str) -> DraftBuilder:
        return self._cite(CASE_FORMS[form](record), record.citation().canonical(), form)

    def unresolvable(self, written: str, note: str) -> DraftBuilder:
        return self._cite(written, None, note)

    def case_list(self, record: CaseRecord, later_serial: int) -> DraftBuilder:
        """`대법원 2019. 2. 21. 선고 2017다38279, 38280 판결`: a later number written as its serial alone,
        one the sample data does not hold, so only the first number can resolve."""
        canonical = record.citation().canonical()
        self._cite(canonical.removesuffix(f" {record.disposition}"), canonical, "head of a case list")
        self.parts.append(", ")
        return self._cite(f"{later_serial} {record.disposition}", None,
                          "later number written as its serial alone; not in the sample data")

    def statute(self, form: str, act: str | None = None, article: int | None = None, branch: int = 0,
                paragraph: int | None = None, item: int | None = None, item_branch: int | None = None,
                subitem: str | None = None) -> DraftBuilder:
        """Cite a provision; a back-reference's act is the one it names by convention (`act`, when
        given, must be that one), and an `article` left out is the last statute's (동조, 같은 항)."""
        previous = self.last
        if form in _BACK_REFERENCES:
            named = self._named_by(form)
            if named is None or act not in (None, named):
                raise LabelError(f"expected {form!r} in {self.file} to name {act or 'an act'}, "
                                 f"got {named!r} by what is cited before it")
            act = named
        if act is None:
            raise LabelError(f"expected an act for {form!r} in {self.file}, got none")
        if article is None:
            if previous is None:
                raise LabelError(f"expected an article named before {form!r} in {self.file}, got none")
            article, branch = previous.article, previous.article_branch or 0
        citation = StatuteCitation(act, article, branch or None, paragraph, item, item_branch, subitem)
        self._check(citation)
        written = self._written(form, citation)
        self.last = citation
        self.cited.append(act)
        return self._cite(written, citation.canonical(), form)

    def _named_by(self, form: str) -> str | None:
        """The act a back-reference names here; `같은 법` after a 시행령 names its 법률, never the 시행령."""
        if form in SAME_DECREE_KIND:
            return next((act for act in reversed(self.cited) if act.endswith(SAME_DECREE_KIND[form])), None)
        if self.last is None or self.last.act is None:
            return None
        statute = self.last.act.removesuffix(" 시행령").removesuffix(" 시행규칙")
        if form in _SAME_ACT:
            return statute if statute.endswith(("법", "법률")) else None
        if form in _DECREE_REFERENCES:
            return f"{statute} {form.rsplit(' ', 1)[1]}"
        return self.last.act  # 동조, 같은 조

    @staticmethod
    def _written(form: str, citation: StatuteCitation) -> str:
        act = citation.act or ""
        provision = provision_text(citation, compact=form in ("compact", "quoted"))
        rest = provision.split(" ")[1:]  # after the article: 제2항 제1호 …
        prefixes = {"canonical": act, "compact": act, "quoted": f"「{act}」",
                    "official 약칭": ACTS_BY_NAME[act].abbreviation, "informal abbreviation": _ALIAS_OF.get(act),
                    "같은 법": "같은 법", "동법": "동법", "declares 영": f"{act}(이하 '영'이라 한다)",
                    "declares 규칙 in 「」": f"「{act}」(이하 “규칙”이라 한다)",
                    **{name: name for name in (*_DECREE_REFERENCES, *_SHORT_NAMES, *SAME_DECREE_KIND)}}
        if form in ("동조", "같은 조"):
            return " ".join([form, *rest])
        if form == "full-width digits":
            return full_width(f"{act} {provision}")
        if form in _LOOKALIKES:
            digit, letter = _LOOKALIKES[form]
            article = provision.split(" ")[0]
            if digit not in article:
                raise LabelError(f"expected an article number with a {digit} for {form!r}, got {article!r}")
            return f"{act} {article.replace(digit, letter, 1)}{provision.removeprefix(article)}"
        if not prefixes.get(form):
            raise LabelError(f"expected a statute form with a name for {act!r}, got {form!r}")
        return f"{prefixes[form]} {provision}"

    def _check(self, citation: StatuteCitation) -> None:
        act = self.acts.get(citation.act or "")
        article = act.article(citation.article or 0, citation.article_branch or 0) if act else None
        if article is None or article.deleted_on:
            raise LabelError(f"expected a live article in the sample data, got {citation!r} in {self.file}")
        if citation.paragraph is None and citation.item is None:
            return
        paragraphs = {p.number: p for p in article.paragraphs}
        paragraph = paragraphs.get(citation.paragraph or 0)  # 제840조 제6호: items of an unnumbered body
        if paragraph is None:
            raise LabelError(f"expected paragraph {citation.paragraph} in {citation.act} {article.label}, "
                             f"got {sorted(paragraphs)}")
        if citation.item is None:
            return
        item = next((i for i in paragraph.items
                     if (i.number, i.branch) == (citation.item, citation.item_branch or 0)), None)
        if item is None or (citation.subitem and citation.subitem not in {s.letter for s in item.subitems}):
            raise LabelError(f"expected item/subitem of {citation!r} in the sample data, got none")

    def document(self) -> str:
        return "".join(self.parts)


def shaped_provision(act: Act, rng: random.Random, shape: str) -> dict[str, object]:
    """A provision of `act` with the wanted structure: "paragraph", "item", "subitem" or "item branch"."""
    choices = []
    for article in act.articles:
        for paragraph in article.paragraphs:
            if paragraph.number == 0:
                continue
            if shape == "paragraph" and paragraph.number >= 2:
                choices.append(dict(article=article.number, branch=article.branch, paragraph=paragraph.number))
            for item in paragraph.items:
                base = dict(article=article.number, branch=article.branch, paragraph=paragraph.number,
                            item=item.number, item_branch=item.branch or None)
                if (shape == "item" and not item.branch) or (shape == "item branch" and item.branch):
                    choices.append(base)
                elif shape == "subitem" and item.subitems:
                    choices.append({**base, "subitem": rng.choice(item.subitems).letter})
    if not choices:
        raise LabelError(f"expected a {shape} in {act.spec.name}, got none")
    return rng.choice(choices)


def write_drafts(drafts: list[tuple[DraftBuilder, str]], out: Path) -> list[Label]:
    """Write each draft (UTF-8, or CP949 where asked) and labels.jsonl; returns all labels."""
    out.mkdir(parents=True, exist_ok=True)
    labels: list[Label] = []
    for builder, encoding in drafts:
        (out / builder.file).write_bytes(builder.document().encode(encoding))
        labels += builder.labels
    (out / "labels.jsonl").write_text("".join(label.as_json() + "\n" for label in labels), encoding="utf-8")
    return labels
