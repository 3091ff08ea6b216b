"""Statute names a grammar may produce, and the article numbers each one has.

A `Lexicon` is plain data: canonical names (acts, 시행령, 시행규칙 as the database knows them), each
with the set of its existing article labels (`"750"`, `"3의2"`) or None where any article number
is admitted; official 약칭, which the statute grammar admits and parsing maps back to the full
name; and informal abbreviations (`민소법`), which only lenient finding accepts. The verifier exports
the database's lexicon as `{name: [labels]}`; `as_lexicon` turns that into a `Lexicon`.

`default_lexicon()` is a small built-in one (major acts, a few decrees, ../shared/reference/
legal-citations.md §2.2) for when no database is at hand.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from grammars.citation import CITED_NAMES
from grammars.collector import collector_paused
from grammars.errors import LexiconError

ArticleLabels = frozenset[str] | None

# `750`, `3의2`: article 1–9999, branch 1–99 (law.go.kr 조문번호 / 조문가지번호).
ARTICLE_LABEL = re.compile(r"([1-9][0-9]{0,3})(?:의([1-9][0-9]?))?")
# Characters that would break the citation around a name: brackets of the quoted form, line breaks.
_FORBIDDEN_IN_NAME = re.compile(r"[「」\n\r\t]")


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)  # weakly keyed: grammars.languages.statute
class Lexicon:
    acts: Mapping[str, ArticleLabels]
    aliases: Mapping[str, str]  # official 약칭 -> canonical name
    informal: Mapping[str, str]  # practitioners' abbreviations -> canonical name
    # A hash of what `build` was given (empty for a Lexicon made otherwise): equal for equal input in any
    # process, so a grammar made from the lexicon can name it in its cache key (grammar.made_by). Input
    # equal in content but in another order hashes otherwise: that only costs a cache miss.
    digest: str = field(default="", init=False)

    @classmethod
    def build(
        cls,
        acts: Mapping[str, Iterable[str] | None] | Iterable[tuple[str, Iterable[str] | None]],
        aliases: Mapping[str, str] | None = None,
        informal: Mapping[str, str] | None = None,
    ) -> Lexicon:
        """Validate and freeze; every defect raises LexiconError naming the entry at fault. The collector
        is paused meanwhile: the label sets live as long as the lexicon (a fifth of the time it took)."""
        with collector_paused():
            return cls._build(acts, aliases, informal)

    @classmethod
    def _build(
        cls,
        acts: Mapping[str, Iterable[str] | None] | Iterable[tuple[str, Iterable[str] | None]],
        aliases: Mapping[str, str] | None,
        informal: Mapping[str, str] | None,
    ) -> Lexicon:
        pairs = list(acts.items() if isinstance(acts, Mapping) else acts)
        if not pairs:
            raise LexiconError("expected at least one statute name in the lexicon, got none")
        checked: dict[str, ArticleLabels] = {}
        # Names hold no tab or line break and labels no unit separator: the spelling splits back. Each
        # act's line in pieces, joined once (no copy of each act's labels into a line of its own).
        spelled: list[str] = []
        valid: set[str] = set()  # the labels checked so far: the book's 400,000 hold some 10,000 distinct
        _check_names([name for name, _ in pairs])
        for position, (name, labels) in enumerate(pairs):
            if name in checked:
                raise LexiconError(f"expected each statute name once, got {name!r} again at act #{position}")
            if labels is None:
                checked[name] = None
                spelled += (name, "\t\n")
            else:
                checked[name], joined = _check_labels(name, labels, valid)
                spelled += (name, "\t\x1f", joined, "\n")
        made = _with_aliases(checked, aliases, informal)
        spelled.append(repr((sorted(made.aliases.items()), sorted(made.informal.items()))))  # checked: strings
        digest = hashlib.blake2b("".join(spelled).encode(), digest_size=16).hexdigest()
        object.__setattr__(made, "digest", digest)  # frozen: set once, here
        return made

    @classmethod
    def rebuilt(
        cls,
        acts: Mapping[str, list[str] | None],
        aliases: Mapping[str, str],
        informal: Mapping[str, str],
        digest: str,
    ) -> Lexicon:
        """What `build(acts, aliases, informal)` made before, whose `digest` it gave, without checking the
        names and labels again (a tenth of a second over the statute book, every process): only for input
        proven to be what that build checked (verifier.derived stores it with a digest of its own bytes).
        Abbreviations are checked still: a few dozen."""
        if not digest:
            raise LexiconError("expected the digest of an earlier build, got an empty one")
        made = _with_aliases({name: None if labels is None else frozenset(labels) for name, labels in acts.items()},
                             aliases, informal)
        object.__setattr__(made, "digest", digest)  # frozen: set once, here
        return made

    def joined(self, other: Lexicon) -> Lexicon:
        """This lexicon's names and `other`'s, `other`'s entry winning where both name an act, and an
        act's name never also an abbreviation: what `build` makes of the two merged, without checking
        again the names and labels both builds checked (a tenth of a second over the statute book). Its
        digest is made of both digests (empty where either is), so it is equal for equal input too."""
        acts = {**self.acts, **other.acts}
        aliases = {a: t for a, t in {**self.aliases, **other.aliases}.items() if a not in acts}
        informal = {a: t for a, t in {**self.informal, **other.informal}.items() if a not in acts and a not in aliases}
        made = _with_aliases(acts, aliases, informal)
        if self.digest and other.digest:
            joined = f"joined\n{self.digest}\n{other.digest}"
            object.__setattr__(made, "digest", hashlib.blake2b(joined.encode(), digest_size=16).hexdigest())
        return made

    @property
    def grammar_names(self) -> tuple[str, ...]:
        """Every name the statute grammar admits: canonical names and official 약칭."""
        return tuple(self.acts) + tuple(self.aliases)

    def canonical_name(self, written: str) -> str | None:
        """The canonical name for a name as written (itself, a 약칭 or an abbreviation), or None."""
        if written in self.acts:
            return written
        return self.aliases.get(written) or self.informal.get(written)

    def citable_name(self, written: str) -> str | None:
        """The act of this lexicon a name as written cites: `canonical_name`, else an abbreviation of
        grammars' built-in lexicon (`근기법`, which the finder reads) of an act this lexicon holds; None for
        neither. What a request may narrow its citations to by: a database need not store every
        abbreviation its acts are written by."""
        canonical = self.canonical_name(written) or default_lexicon().canonical_name(written)
        return canonical if canonical in self.acts else None

    def articles_of(self, written: str) -> ArticleLabels:
        return self.acts[self.canonical_name(written) or written]


def _with_aliases(acts: dict[str, ArticleLabels], aliases: Mapping[str, str] | None,
                  informal: Mapping[str, str] | None) -> Lexicon:
    """A Lexicon of checked `acts` (renamed and shared in place, see below) and its abbreviations, checked
    here. Equal article sets become one object: the statute book's 11,202 names hold 5,151 distinct sets
    (a `구` form mostly the same as its act's), and the statute grammar, which groups names by their set,
    then finds each group by identity instead of comparing sets label by label."""
    shared: dict[frozenset[str], frozenset[str]] = {}
    for name, labels in acts.items():
        if labels is not None:
            acts[name] = shared.setdefault(labels, labels)
    aliases, informal = _cited_by_their_names(acts, dict(aliases or {}), dict(informal or {}))
    # Read-only views: a Lexicon is shared (default_lexicon() is cached), so nobody may edit it.
    return Lexicon(
        acts=MappingProxyType(acts),
        aliases=MappingProxyType(_check_aliases("official 약칭", aliases, acts, ())),
        informal=MappingProxyType(_check_aliases("informal abbreviation", informal, acts, tuple(aliases))),
    )


def _cited_by_their_names(
    acts: dict[str, ArticleLabels], aliases: dict[str, str], informal: dict[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """An act courts cite by another name than its title (CITED_NAMES: the database's 대한민국헌법) is
    spelled by that name, its title kept as an informal name for it; `acts` is renamed in place."""
    for title, cited in CITED_NAMES.items():
        if title not in acts or cited in acts:
            continue
        acts[cited] = acts.pop(title)
        aliases = {alias: cited if target == title else target for alias, target in aliases.items() if alias != cited}
        informal = {alias: cited if target == title else target for alias, target in informal.items()
                    if alias != cited}
        if title not in aliases:
            informal[title] = cited
    return aliases, informal


def as_lexicon(lexicon: Lexicon | Mapping[str, Iterable[str] | None] | None) -> Lexicon:
    """Accept a Lexicon, the verifier's plain `{name: [article labels]}` export, or None (built-in)."""
    if lexicon is None:
        return default_lexicon()
    if isinstance(lexicon, Lexicon):
        return lexicon
    if isinstance(lexicon, Mapping):
        return Lexicon.build(lexicon)
    raise LexiconError(
        f"expected a Lexicon or a mapping of statute names to article labels, got {type(lexicon).__name__}"
    )


def article_label(article: int, branch: int | None) -> str:
    return f"{article}의{branch}" if branch else str(article)


def _check_names(names: list[object]) -> None:
    """`_check_name` on every act's name: the checks made over all names at once (11,000 of them), name
    by name only to name the culprit."""
    try:
        joined = "\x00".join(names)  # type: ignore[arg-type]  # a name that is not a string: TypeError
        clean = (
            all(names)
            and list(map(str.strip, names)) == names  # type: ignore[arg-type]
            and not _FORBIDDEN_IN_NAME.search(joined)
            and "  " not in joined
        )
    except TypeError:
        clean = False
    if not clean:
        for position, name in enumerate(names):
            _check_name(name, f"act #{position}")


def spellable_name(name: str) -> bool:
    """Whether a Lexicon takes `name` as a statute name: no outer or doubled spaces, brackets of the
    quoted form or breaks, which the statute grammar cannot spell (`「대한민국 법원의 날」제정에 관한 규칙`)."""
    return bool(name) and name == name.strip() and not _FORBIDDEN_IN_NAME.search(name) and "  " not in name


def _check_name(name: object, where: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise LexiconError(f"expected a non-empty statute name at {where}, got {name!r}")
    if not spellable_name(name):
        raise LexiconError(
            f"expected a name without outer or doubled spaces, brackets or breaks at {where}, got {name!r}"
        )


def _check_labels(name: str, labels: Iterable[str], valid: set[str]) -> tuple[frozenset[str], str]:
    """The labels as a set, and joined by line breaks in the order given. `valid` holds labels already
    checked (by earlier acts of the same lexicon) and gains this act's: each distinct label is matched
    against ARTICLE_LABEL once per lexicon, not once per act."""
    if isinstance(labels, str):
        raise LexiconError(f"expected a list of article labels for {name!r}, got the string {labels!r}")
    if not isinstance(labels, (list, tuple)):  # an export's lists are read as they are, not copied
        labels = tuple(labels)
    if not labels:
        raise LexiconError(f"expected at least one article label for {name!r}, got none (use None for any)")
    try:
        unique = frozenset(labels)
        # Most acts hold no label an earlier act did not: a subset test makes no set of the new ones.
        new = frozenset() if valid.issuperset(unique) else unique - valid
        well_formed = all(isinstance(label, str) and ARTICLE_LABEL.fullmatch(label) for label in new)
    except TypeError:  # an unhashable label
        well_formed = False
    if not well_formed:  # the slow search only names the culprit
        position, label = next(
            (i, label) for i, label in enumerate(labels)
            if not isinstance(label, str) or not ARTICLE_LABEL.fullmatch(label)
        )
        raise LexiconError(
            f"expected article labels like '750' or '3의2' for {name!r}, got {label!r} at position {position}"
        )
    valid |= new
    if len(unique) != len(labels):
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        raise LexiconError(f"expected each article label once for {name!r}, got duplicates {duplicates[:5]}")
    return unique, "\n".join(labels)


def _check_aliases(kind: str, aliases: Mapping[str, str], acts: Mapping[str, ArticleLabels],
                   taken: tuple[str, ...]) -> dict[str, str]:
    for alias, target in aliases.items():
        _check_name(alias, f"{kind} {alias!r}")
        if target not in acts:
            raise LexiconError(f"expected the {kind} {alias!r} to name an act of the lexicon, got {target!r}")
        if alias in acts or alias in taken:
            raise LexiconError(f"expected the {kind} {alias!r} to differ from every other name, got a clash")
    return dict(aliases)


# Major acts by their official titles (law.go.kr 법령명한글), comma-separated, except the Constitution:
# every court cites it as `헌법` (DESIGN's canonical form), its title 대한민국헌법 is registered below as
# the name that maps to it.
_ACTS = """
헌법, 민법, 형법, 상법, 민사소송법, 형사소송법, 행정소송법, 가사소송법, 민사집행법, 행정심판법,
행정기본법, 행정절차법, 헌법재판소법, 법원조직법, 변호사법, 공증인법, 공탁법, 비송사건절차법, 민사조정법,
소액사건심판법, 부동산등기법, 신탁법, 이자제한법, 신원보증법, 국가배상법, 근로기준법, 최저임금법, 고용보험법,
국민연금법, 국민건강보험법, 산업안전보건법, 산업재해보상보험법, 국세기본법, 국세징수법, 소득세법, 법인세법,
부가가치세법, 조세범 처벌법, 지방세법, 지방세기본법, 관세법, 조세특례제한법, 국가재정법, 감사원법, 국가공무원법,
지방공무원법, 공무원연금법, 공직선거법, 정당법, 국회법, 정부조직법, 지방자치법, 건축법, 도로법, 주택법, 공인중개사법,
주택임대차보호법, 상가건물 임대차보호법, 근로자퇴직급여 보장법, 노동조합 및 노동관계조정법, 개인정보 보호법,
독점규제 및 공정거래에 관한 법률, 특정범죄 가중처벌 등에 관한 법률, 특정경제범죄 가중처벌 등에 관한 법률,
성폭력범죄의 처벌 등에 관한 특례법, 가정폭력범죄의 처벌 등에 관한 특례법, 아동ㆍ청소년의 성보호에 관한 법률,
아동학대범죄의 처벌 등에 관한 특례법, 폭력행위 등 처벌에 관한 법률, 정보통신망 이용촉진 및 정보보호 등에 관한 법률,
통신비밀보호법, 도로교통법, 교통사고처리 특례법, 자동차손해배상 보장법, 자본시장과 금융투자업에 관한 법률,
특정 금융거래정보의 보고 및 이용 등에 관한 법률, 전자금융거래법, 국가를 당사자로 하는 계약에 관한 법률, 조달사업에 관한 법률,
지방자치단체를 당사자로 하는 계약에 관한 법률, 도시 및 주거환경정비법, 중대재해 처벌 등에 관한 법률,
학교폭력예방 및 대책에 관한 법률, 마약류 관리에 관한 법률, 저작권법, 특허법, 상표법, 디자인보호법,
부정경쟁방지 및 영업비밀보호에 관한 법률, 하도급거래 공정화에 관한 법률, 가맹사업거래의 공정화에 관한 법률,
약관의 규제에 관한 법률, 전자상거래 등에서의 소비자보호에 관한 법률, 소비자기본법, 제조물 책임법,
채무자 회생 및 파산에 관한 법률, 보험업법, 은행법, 여신전문금융업법, 집합건물의 소유 및 관리에 관한 법률,
가등기담보 등에 관한 법률, 부동산 실권리자명의 등기에 관한 법률, 국토의 계획 및 이용에 관한 법률,
공익사업을 위한 토지 등의 취득 및 보상에 관한 법률, 남녀고용평등과 일ㆍ가정 양립 지원에 관한 법률,
파견근로자 보호 등에 관한 법률, 기간제 및 단시간근로자 보호 등에 관한 법률, 의료법, 약사법, 식품위생법,
환경정책기본법, 폐기물관리법, 출입국관리법, 국적법, 병역법, 군형법, 군사법원법, 경찰관 직무집행법,
형의 집행 및 수용자의 처우에 관한 법률, 보호관찰 등에 관한 법률, 아동복지법, 청소년 보호법,
공공기관의 정보공개에 관한 법률, 신용정보의 이용 및 보호에 관한 법률, 가족관계의 등록 등에 관한 법률,
금융산업의 구조개선에 관한 법률, 여객자동차 운수사업법, 경범죄 처벌법, 민사소송규칙, 형사소송규칙
"""
_DECREES = ("근로기준법", "소득세법", "법인세법", "부가가치세법", "국세기본법", "개인정보 보호법", "산업안전보건법",
            "도로교통법", "건축법", "주택임대차보호법", "상가건물 임대차보호법", "민사집행법")
_RULES = ("근로기준법", "소득세법", "산업안전보건법", "도로교통법", "건축법")

# Official 약칭 (law.go.kr lsAbrv). The first eight are confirmed in §2.2 of the reference notes;
# the rest are as practitioners know them [unverified]; a database export supersedes them all.
_OFFICIAL_ABBREVIATIONS = {
    "주택임대차법": "주택임대차보호법", "국가계약법": "국가를 당사자로 하는 계약에 관한 법률",
    "지방계약법": "지방자치단체를 당사자로 하는 계약에 관한 법률", "공정거래법": "독점규제 및 공정거래에 관한 법률",
    "성폭력처벌법": "성폭력범죄의 처벌 등에 관한 특례법", "특정범죄가중법": "특정범죄 가중처벌 등에 관한 법률",
    "정보통신망법": "정보통신망 이용촉진 및 정보보호 등에 관한 법률", "학교폭력예방법": "학교폭력예방 및 대책에 관한 법률",
    "대한민국헌법": "헌법", "상가임대차법": "상가건물 임대차보호법", "자본시장법": "자본시장과 금융투자업에 관한 법률",
    "채무자회생법": "채무자 회생 및 파산에 관한 법률", "토지보상법": "공익사업을 위한 토지 등의 취득 및 보상에 관한 법률",
    "국토계획법": "국토의 계획 및 이용에 관한 법률", "도시정비법": "도시 및 주거환경정비법",
    "청소년성보호법": "아동ㆍ청소년의 성보호에 관한 법률", "아동학대처벌법": "아동학대범죄의 처벌 등에 관한 특례법",
    "가정폭력처벌법": "가정폭력범죄의 처벌 등에 관한 특례법", "특정경제범죄법": "특정경제범죄 가중처벌 등에 관한 법률",
    "폭력행위처벌법": "폭력행위 등 처벌에 관한 법률", "중대재해처벌법": "중대재해 처벌 등에 관한 법률",
    "남녀고용평등법": "남녀고용평등과 일ㆍ가정 양립 지원에 관한 법률", "파견법": "파견근로자 보호 등에 관한 법률",
    "기간제법": "기간제 및 단시간근로자 보호 등에 관한 법률", "약관법": "약관의 규제에 관한 법률",
    "하도급법": "하도급거래 공정화에 관한 법률", "가맹사업법": "가맹사업거래의 공정화에 관한 법률",
    "부정경쟁방지법": "부정경쟁방지 및 영업비밀보호에 관한 법률", "집합건물법": "집합건물의 소유 및 관리에 관한 법률",
    "가등기담보법": "가등기담보 등에 관한 법률", "부동산실명법": "부동산 실권리자명의 등기에 관한 법률",
    "정보공개법": "공공기관의 정보공개에 관한 법률", "신용정보법": "신용정보의 이용 및 보호에 관한 법률",
    "형집행법": "형의 집행 및 수용자의 처우에 관한 법률", "마약류관리법": "마약류 관리에 관한 법률",
    "전자상거래법": "전자상거래 등에서의 소비자보호에 관한 법률", "특정금융정보법": "특정 금융거래정보의 보고 및 이용 등에 관한 법률",
    "가족관계등록법": "가족관계의 등록 등에 관한 법률", "노동조합법": "노동조합 및 노동관계조정법",
    "근로자퇴직급여법": "근로자퇴직급여 보장법",
}
# Practitioners' abbreviations, absent from lsAbrv (reference §2.2). `국계법` is left out: drafts use it
# for both 국가계약법 and 국토계획법.
_INFORMAL_ABBREVIATIONS = {
    "민소법": "민사소송법", "형소법": "형사소송법", "행소법": "행정소송법", "민집법": "민사집행법", "가소법": "가사소송법",
    "근기법": "근로기준법", "근퇴법": "근로자퇴직급여 보장법", "노조법": "노동조합 및 노동관계조정법",
    "산안법": "산업안전보건법", "산재법": "산업재해보상보험법", "국기법": "국세기본법", "법법": "법인세법",
    "부가법": "부가가치세법", "헌재법": "헌법재판소법", "행절법": "행정절차법",
    "가폭법": "가정폭력범죄의 처벌 등에 관한 특례법", "아청법": "아동ㆍ청소년의 성보호에 관한 법률", "행심법": "행정심판법", "성폭법": "성폭력범죄의 처벌 등에 관한 특례법",
    "아학법": "아동학대범죄의 처벌 등에 관한 특례법", "특가법": "특정범죄 가중처벌 등에 관한 법률",
    "특경법": "특정경제범죄 가중처벌 등에 관한 법률", "폭처법": "폭력행위 등 처벌에 관한 법률", "국배법": "국가배상법",
    "정통망법": "정보통신망 이용촉진 및 정보보호 등에 관한 법률", "개보법": "개인정보 보호법", "통비법": "통신비밀보호법",
    "주임법": "주택임대차보호법", "상임법": "상가건물 임대차보호법", "도교법": "도로교통법",
    "자시법": "자본시장과 금융투자업에 관한 법률", "특금법": "특정 금융거래정보의 보고 및 이용 등에 관한 법률",
    "전금법": "전자금융거래법", "도정법": "도시 및 주거환경정비법", "중처법": "중대재해 처벌 등에 관한 법률",
    "금산법": "금융산업의 구조개선에 관한 법률", "상가임대차보호법": "상가건물 임대차보호법",
}


def _act_names() -> list[str]:
    return [name.strip() for name in _ACTS.replace("\n", " ").split(",") if name.strip()]


@functools.cache
def default_lexicon() -> Lexicon:
    acts = _act_names()
    acts += [f"{act} 시행령" for act in _DECREES] + [f"{act} 시행규칙" for act in _RULES]
    return Lexicon.build({name: None for name in acts}, _OFFICIAL_ABBREVIATIONS, _INFORMAL_ABBREVIATIONS)
