"""Scanned text read as its writer meant it, for finding (grammars.find): full-width digits and
punctuation, and a few OCR confusions that cannot be anything else where they stand (`제75O조`, `제l7조`,
`대법윈`), read as what they stand for, one character for one, so every span of the reading is a span
of the text."""

from __future__ import annotations

import re
from dataclasses import replace

from grammars.found import CitationForm, FoundCitation
from grammars.languages.drafts import LOOSE_SPACE

_SPACE = LOOSE_SPACE
_GAP = _SPACE + "*"
# Full-width ASCII (`제７５０조`, `２０２４．７．１１．`), as Asian input methods and PDF exports write it.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
# Runs of them, translated alone: `str.translate` with a table looks up every character of a text in Python
# terms, a tenth of a second per megabyte of text holding one full-width character.
_FULL_WIDTH_RUN = re.compile("[\uff01-\uff5e]+")
# Letters OCR reads for digits. Read as digits only inside an article, paragraph or item number that
# holds a real digit too (`제75O조`, `제l7조`, `제1O항`): `제O조`, a `Model I` or an `l` in English prose
# stay letters, so no confusion alone makes a number, let alone a citation.
_DIGIT_LOOKALIKES = str.maketrans("OoIl|", "00111")
# Only numbers holding a look-alike are matched: one of plain digits reads as itself, and a call per
# `제N조` of a draft cost a tenth of finding its citations.
_SCANNED_NUMBER = re.compile(
    rf"제{_SPACE}*(?=[0-9]{{0,3}}[OoIl|])(?=[0-9OoIl|]*[0-9])[0-9OoIl|]{{1,4}}(?={_GAP}[조항호])")
# `법윈` is no Korean word; OCR reads it for 법원 (`대법윈`, `서울고등법윈`).
_MISREAD, _MEANT = "법윈", "법원"


def read_scanned(text: str) -> str:
    """`text` as its writer meant it where scanning or a full-width input method changed it, one
    character for one, so every span of the result is a span of `text`."""
    read = _FULL_WIDTH_RUN.sub(lambda run: run.group().translate(_FULL_WIDTH), text)
    read = _SCANNED_NUMBER.sub(lambda number: number.group().translate(_DIGIT_LOOKALIKES), read)
    return read.replace(_MISREAD, _MEANT)


def as_scanned(found: FoundCitation, written: str, read: str) -> FoundCitation:
    """A citation found in `read_scanned` text, with `scanned` saying what was read otherwise."""
    if written == read:
        return found
    full_width = written.translate(_FULL_WIDTH) == read
    scanned = CitationForm.FULL_WIDTH if full_width else CitationForm.OCR_CONFUSION
    # The reading is the last quirk in CitationForm's order: it replaces only CANONICAL, so that a form
    # saying what the citation took from the text before it (a list, a serial alone, 같은 법) stays.
    form = scanned if found.form is CitationForm.CANONICAL else found.form
    return replace(found, form=form, scanned=scanned)
