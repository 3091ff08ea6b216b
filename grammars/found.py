"""What finding returns: a `FoundCitation` (span, citation value, form), and the forms it names."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from grammars.citation import ParsedCitation, StatuteCitation


class CitationForm(str, Enum):
    """How a found citation was written; a citation with several quirks gets the first that applies."""

    CANONICAL = "canonical"
    SUPREME_COURT_ABBREVIATION = "대판/대결"
    COURT_ABBREVIATION = "court abbreviation"
    IMPOSSIBLE_DATE = "a date not in the calendar (read as no date)"
    BARE_CASE_NUMBER = "bare case number"
    SPACED_CASE_NUMBER = "spaced case number"
    COMMA_SEPARATED = "commas instead of 선고"
    LOOSE_SPACING = "loose spacing or dots"
    BACK_REFERENCE = "back-reference"
    QUOTED_ACT = "「」-quoted act"
    ABBREVIATED_ACT = "약칭 or informal abbreviation"
    COMPACT_PROVISION = "compact provision"
    LIST_CONTINUATION = "later provision of a list"
    CASE_NUMBER_SHORTHAND = "later case number without its year and 사건부호"
    DATED_LIST_ITEM = "later decision of a list, with its own date, of the court written first"
    DECREE_BACK_REFERENCE = "같은 법 시행령/시행규칙"
    DECREE_SHORT_NAME = "영/규칙 for a 시행령/시행규칙"
    SAME_DECREE = "같은 영/같은 시행령/동령/같은 규칙 for the 시행령/시행규칙 cited before"
    DECLARES_SHORT_NAME = "declares a short name (이하 '…'이라 한다)"
    UNLISTED_ACT = "act outside the lexicon, by its shape"
    VERSION = "구 or a version note"
    SUPPLEMENT = "a provision of a 부칙"
    RANGE = "later end of a range (부터 … 까지, 내지, ~)"
    CASE_HEADER = "law.go.kr header ([대법원 …, 선고, …, 판결])"
    FULL_WIDTH = "full-width digits or punctuation"
    OCR_CONFUSION = "OCR confusion"


@dataclass(frozen=True, slots=True)
class FoundCitation:
    span: tuple[int, int]  # text[span[0]:span[1]] is the citation as written
    citation: ParsedCitation
    form: CitationForm
    # The short name (`법`, `영`, `규칙`) the citation declares for its act: `근로기준법 시행령(이하 '영'이라
    # 한다) 제30조`. Later `영 제5조` refer to it, so a rewrite must keep the declaration.
    declares: str | None = None
    # FULL_WIDTH or OCR_CONFUSION where the citation was read otherwise than written (`read_scanned`).
    scanned: CitationForm | None = None
    # At the later end of a range (`제329조부터 제331조까지`), what the range cites between its ends
    # without writing it (제330조), in order.
    through: tuple[StatuteCitation, ...] = ()
