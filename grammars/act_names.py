"""Acts the lexicon does not know, recognised by their shape, as real text cites most statutes:
`국가보안법 제3조`, `인신보호법 제15조`, `공동주택관리령 제15조`, `식품위생법시행령 제9조`.

A head is a word ending in 법, 법률, 령, 규칙 or 규정 (or 조약, 협약, 협정: treaties) right before an
article (or a version note), and `head_of` decides where the act's name begins, since prose runs into it without a mark:

- the longest run of words before it whose spelling, spaces and middle dots aside, is a name of the
  lexicon (`특정범죄가중처벌 등에 관한 법률` is 특정범죄 가중처벌 등에 관한 법률);
- after `구`/`개정전의`, every word back to it (`구 전자문서 및 전자거래 기본법 제3조`): 구 marks where
  the name begins;
- for a bare `법률` after `…에 관한`/`…에 대한` (`손해배상청구권의 소멸시효에 관한 법률 제766조`, an act no
  lexicon holds), the words before it back to the start of the clause: to a word of prose (`피고는`, or
  an adverb that opens a clause: `한편`, `따라서`), a mark or `_MOST_WORDS` words. The span may take another
  word of prose the clause opens with: more of the text is then withheld by a last check, never less;
- a generic ending that names no act alone (`처벌법`, `특례법`) with the word before it, where that word
  is a title's (`경범죄 처벌법`), not prose or a pointer (`관련 특별법`); a treaty with its parties before
  it (`한·중 조세조약`);
- otherwise the word itself, unless it is such a generic ending (`기본법`, `법률`, `특례법`) or a
  common word (`방법`, `명령`, `취업규칙`): then no act is read, never a truncated one.

A decree glued to its act (`식품위생법시행령`) is read with the space of its official title.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from grammars.boundary import MIDDLE_DOTS, NOT_AFTER_WORD
from grammars.match_memo import ENTRIES
from grammars.versions import AMENDING_ACT

_WORD = f"[0-9가-힣{MIDDLE_DOTS}]"
_OTHER_DOTS = MIDDLE_DOTS[1:]  # names are read with the official one
_TO_OFFICIAL_DOT = str.maketrans(dict.fromkeys(_OTHER_DOTS, MIDDLE_DOTS[0]))
_SPACE = "[ \t\u00a0\u3000]"
# How the title of an act (or a treaty) ends; 법률 ends in 률 but shares 법's reading.
ACT_ENDINGS = ("법", "령", "규칙", "규정", "조약", "협약", "협정")
SHAPE_HEAD = re.compile(
    # A name starts with a syllable, or a date such as `10ㆍ27`, and holds no other digits (`제4조·민법` is
    # no name); two syllables ending in 법 are the lexicon's (`민법`) or words (`방법`).
    rf"{NOT_AFTER_WORD}(?P<name>(?:[0-9]{{1,4}}[{MIDDLE_DOTS}])*"
    rf"(?:[가-힣][가-힣{MIDDLE_DOTS}]*[가-힣](?:{'|'.join(ACT_ENDINGS)})|(?:[가-힣][가-힣{MIDDLE_DOTS}]*)?법률))"
    rf"(?:{_SPACE}?(?P<decree>시행령|시행규칙))?"
    # an article (`제3조`, `3조`, `- 제3조`), a note's parenthesis or a 부칙 follows, or the 부칙 of an amending
    # act (`한국산업은행법 전부개정법률 부칙`)
    rf"(?={_SPACE}*(?:\(|[-–—:]|제{_SPACE}*[0-9]|[0-9]{{1,4}}{_SPACE}*조|(?:{AMENDING_ACT}{_SPACE}*)?부칙))"
)
# `공무원연금법개정법률 부칙`: the amending act glued to the name of the act it amends, whose 부칙 it is.
_AMENDED = re.compile(rf"(?P<amended>.+(?:{'|'.join(ACT_ENDINGS)}))(?:{AMENDING_ACT})")
_SUPPLEMENT_NEXT = re.compile(rf"{_SPACE}*부칙")
# Words ending like a law that are not one, or that name no act without the words before them.
_NOT_ACTS = frozenset("""
법 방법 불법 위법 적법 합법 편법 입법 사법 공법 문법 수법 기법 용법 해법 비법 무법 어법 필법 상법칙 법칙 구법 신법 본법 현행법 모법 국내법 외국법
일반법 동법 동법률 같은법률 이법 전법 당해법 해당법 위법령 관계법 관계법령 법령 관련법 명령 대통령 연령 요령 훈령 발령 대령 구령 지령 사령 수령 망령 영령 정령 시행령
동령 본령 같은령 규칙 시행규칙 취업규칙 사내규칙 내부규칙 회사규칙 같은규칙 동규칙 본규칙 세칙 규정 관련규정 위규정 같은규정 동규정 내부규정 사내규정 본규정
해당규정 관계규정 이규정 그규정 각규정 정관규정 단체협약 노동협약 임금협약
""".split())  # noqa: SIM905  a word list reads best as words
# Endings shared by many titles: they name an act only with the words before them.
_GENERIC_LAWS = frozenset(["기본법", "특례법", "특별법", "조치법", "처벌법"])  # with the word before: a title
_GENERIC = _GENERIC_LAWS | {"법률", "시행령", "시행규칙"}
# `…에 관한 법률 일부개정법률 제25조` cites an amending act by the name of the act it amends.
_AMENDING = ("개정법률", "개정법", "개정령")
# Particles and endings that end a clause of prose, never a word of a title (titles have 의, 및, 등, 에 관한).
_PROSE_ENDINGS = ("은", "는", "을", "를", "에서", "에게", "으로", "로서", "로써", "하여", "하고", "께서", "였다", "한다")
_TREATIES = ("조약", "협약", "협정")
_PARTIES = re.compile(f"[가-힣]{{1,6}}(?:[{MIDDLE_DOTS}][가-힣]{{1,6}})+")  # the parties before a treaty's title: `한·중`, `한ㆍ미ㆍ일`
# Words before a generic ending that point at an act rather than name it (`관련 특별법 제3조`).
_POINTERS = frozenset(("관련", "해당", "개별", "기타", "모든", "일반", "다른", "현행", "당해", "관계", "위의", "사건", "본건"))
# Adverbs that open a clause (`한편 성폭력범죄의 … 관한 법률`): no title of the statute book holds one as a word.
_CLAUSE_OPENERS = frozenset("""
한편 따라서 그리고 또한 그러나 다만 이에 즉 특히 나아가 그런데 결국 아울러 그러므로 반면 더욱이 이때 당시
""".split())  # noqa: SIM905  a word list reads best as words
_FORMER_BEFORE = re.compile(rf"(?:^|(?<=[^0-9가-힣]))(구|개정{_SPACE}?전의){_SPACE}$")
_MOST_WORDS = 10  # the longest titles have about as many words before their ending
_SPACES = frozenset(" \t\u00a0\u3000")
_DIGIT = re.compile("[0-9]")
_DATED = re.compile(f"[0-9]{{1,4}}[{MIDDLE_DOTS}][0-9]{{1,4}}[가-힣]")  # `10ㆍ27법난`: a date that opens a title


def official_dots(text: str) -> str:
    """`text` with the official middle dot for every other one. Most names have none: a search for each
    takes a fraction of the time `translate` takes to copy the text character by character."""
    if any(dot in text for dot in _OTHER_DOTS):
        return text.translate(_TO_OFFICIAL_DOT)
    return text


def fold_name(name: str) -> str:
    """A name as written modulo spaces and middle dots: how names are matched and looked up."""
    return official_dots("".join(name.split()))


class KnownNames:
    """The lexicon's names as `head_of` asks for them: `name(written)`, the lexicon's name for a written
    one (None where it has none; its answers kept, since drafts write the same runs of words again and
    again), which is never None unless `fold_name(written)` is in `folded`; and `ends_a_name(tail)`,
    whether any of `folded` ends in the folded `tail`, checked in a sorted list of the names reversed."""

    def __init__(self, folded: Iterable[str], name: Callable[[str], str | None]) -> None:
        self.name = functools.lru_cache(maxsize=ENTRIES)(name)
        self._reversed = sorted(entry[::-1] for entry in folded)

    def ends_a_name(self, tail: str) -> bool:
        backwards = tail[::-1]
        at = bisect_left(self._reversed, backwards)
        return at < len(self._reversed) and self._reversed[at].startswith(backwards)


@dataclass(frozen=True, slots=True)
class ActHead:
    start: int  # where the name (or `구` before it) begins
    written: str  # the name as written, up to the end of the match
    name: str  # the name as the lexicon knows it, or as written with its spaces normalised
    known: bool
    former: bool


def _is_prose(word: str) -> bool:
    return word.endswith(_PROSE_ENDINGS) or word in ("또는", "위", "그", "같은", "동") or word in _CLAUSE_OPENERS


def head_of(text: str, match: re.Match[str], known: KnownNames) -> ActHead | None:
    """The act a `SHAPE_HEAD` match names, and where its name begins; None where no act is read."""
    word, decree = match["name"], match["decree"]
    amended = _AMENDED.fullmatch(word) if decree is None and _SUPPLEMENT_NEXT.match(text, match.end()) else None
    if amended is not None:
        word = amended["amended"]
    spelled = official_dots(f"{word} {decree}" if decree else _spaced_decree(word))
    act, _, kind = spelled.rpartition(" ")
    if kind in ("시행령", "시행규칙") and (parent := known.name(act)) is not None:
        spelled = f"{parent} {kind}"  # `국가를당사자로하는계약에관한법률시행령`: the decree of a known act, as it spells it
    # The longest run of preceding words that, with the head, is a known name: none longer than the
    # longest run that ends a name (folded, a run is its words' folds run together), none at all where
    # the head alone ends none. Most heads are known names with a word of prose before them: the words
    # are read back one at a time, only as far as a name could reach.
    tail, run = fold_name(spelled), list[str]()
    if known.ends_a_name(tail):
        for before in _backwards_words(text, match.start()):
            tail = fold_name(before) + tail
            if not known.ends_a_name(tail):
                break
            run.insert(0, before)
        for count in range(len(run), -1, -1):
            name = known.name(" ".join([*run[len(run) - count:], spelled]))
            if name is not None:
                start = _start_of_words(text, match.start(), count)
                return _with_former(text, ActHead(start, text[start:match.end()], name, True, False))
    words = _words_before(text, match.start())
    former_at = _former_start(text, match.start(), words)
    if former_at is not None:
        start, count = former_at
        name = official_dots(" ".join([*words[len(words) - count:], spelled]))
        return ActHead(start, text[start:match.end()], name, False, True)
    if word == "법률" and len(words) >= 2 and words[-1] in ("관한", "대한") and len(words[-2]) > 1 \
            and words[-2].endswith("에"):
        count = _title_words(words)
        start = _start_of_words(text, match.start(), count)
        name = official_dots(" ".join([*words[len(words) - count:], spelled]))
        return _with_former(text, ActHead(start, text[start:match.end()], name, False, False))
    if words and ((word in _GENERIC_LAWS and _names_a_title(words[-1]))  # `경범죄 처벌법`: the word before too
                  or (word.endswith(_TREATIES) and _PARTIES.fullmatch(words[-1]))):  # `한·중 조세조약`
        start = _start_of_words(text, match.start(), 1)
        name = official_dots(f"{words[-1]} {spelled}")
        return _with_former(text, ActHead(start, text[start:match.end()], name, False, False))
    if word in _NOT_ACTS or word in _GENERIC or word.endswith(_AMENDING):
        return None
    if word.endswith("령") and len(word) < 4:  # `행동령`: a decree's title is longer (`공동주택관리령`)
        return None
    return _with_former(text, ActHead(match.start(), match.group(), spelled, False, False))


def _names_a_title(word: str) -> bool:
    """Whether the word before a generic ending (`처벌법`, `특례법`) is the rest of a title, not a word that
    only points at one (`관련 특별법`, `해당 처벌법`) or prose."""
    return len(word) > 1 and word not in _POINTERS and not _not_in_a_title(word)


def _not_in_a_title(word: str) -> bool:
    return _is_prose(word) or bool(_DIGIT.search(word) and not _DATED.match(word))


def _title_words(words: list[str]) -> int:
    """How many of `words` (ending in `…에 관한`) belong to the title they end: back to a word of prose or
    one with a number that is no date of the title (`제4조제1항 및 법률 제8995호 10ㆍ27법난 피해자의 …`)."""
    count = 2
    while count < len(words):
        if _not_in_a_title(words[len(words) - 1 - count]):
            break
        count += 1
    return count


def _words_before(text: str, end: int) -> list[str]:
    """The words (of `_WORD` characters, each followed by spaces) right before `end`, at most
    `_MOST_WORDS`, in text order: a scan back from `end`, so its cost is the words', not the text's."""
    return list(_backwards_words(text, end))[::-1]


def _backwards_words(text: str, end: int) -> Iterator[str]:
    """`_words_before(text, end)` from the last, read as they are asked for."""
    position, count = end, 0
    while count < _MOST_WORDS and position > 0 and text[position - 1] in _SPACES:
        word_end = position - 1
        while word_end > 0 and text[word_end - 1] in _SPACES:
            word_end -= 1
        word_start = word_end
        while word_start > 0 and _is_word_char(text[word_start - 1]):
            word_start -= 1
        if word_start == word_end:
            return
        yield text[word_start:word_end]
        position, count = word_start, count + 1


def _is_word_char(char: str) -> bool:
    """Whether `char` matches `_WORD`, without a regex call per character."""
    return "가" <= char <= "힣" or "0" <= char <= "9" or char in MIDDLE_DOTS


def _spaced_decree(word: str) -> str:
    """`식품위생법시행령` -> `식품위생법 시행령`: a decree's official title puts a space before 시행령."""
    for kind in ("시행령", "시행규칙"):
        if word.endswith(kind) and len(word) > len(kind) + 1 and word[: -len(kind)].endswith(("법", "법률")):
            return f"{word[: -len(kind)]} {kind}"
    return word


def _start_of_words(text: str, end: int, count: int) -> int:
    """Where the `count` words right before `end` begin (each followed by one space or more)."""
    position = end
    for _ in range(count):
        position -= 1
        while position > 0 and text[position - 1] in " \t\u00a0\u3000":
            position -= 1
        while position > 0 and _is_word_char(text[position - 1]):
            position -= 1
    return position


def _former_start(text: str, head_start: int, words: list[str]) -> tuple[int, int] | None:
    """After `구`/`개정전의`, the name runs back to it: (where 구 begins, how many words the name has
    before the head); None without one, or with prose in between."""
    for count in range(len(words) + 1):
        start = _start_of_words(text, head_start, count)
        former = _FORMER_BEFORE.search(text, max(0, start - 8), start)
        if former is not None:
            return former.start(), count
        # prose, or a number that is no date of a title (`구 송유관사업법 제3조 및 송유관 안전관리법`): another citation
        if count < len(words) and _not_in_a_title(words[len(words) - 1 - count]):
            return None
    return None


def _with_former(text: str, head: ActHead) -> ActHead:
    former = _FORMER_BEFORE.search(text, max(0, head.start - 8), head.start)
    if former is None:
        return head
    return ActHead(former.start(), text[former.start():head.start] + head.written, head.name, head.known, True)
