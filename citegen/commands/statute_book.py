"""The statute book as training data: the acts in force on a day, read from the shipped bundle
with the verifier's own reader (`verifier.importers.book.read_histories`), handed to
`citegen.training.sources.book_acts` as plain `ArticleText` values. It lives in the composition
root because it is the one place where citegen code may see the verifier (tests/test_boundaries.py);
the training CLI imports it when it is asked to read a bundle."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from citegen.training.errors import TrainingDataError
from citegen.training.sources import ArticleText
from verifier import BUNDLE_SUFFIX, BookReport, ImportFileError, read_histories

logger = logging.getLogger(__name__)

StatuteBook = dict[str, tuple[str, list[ArticleText]]]  # name in force -> (법령구분, live articles)


def bundle_in(law: Path) -> Path | None:
    """The statute book bundle `law` is or holds (data/law holds one), else None."""
    if law.is_file():
        return law if BUNDLE_SUFFIX in law.name.lower() else None
    bundles = sorted(law.glob(f"*{BUNDLE_SUFFIX}*")) if law.is_dir() else []
    return bundles[0] if bundles else None


def read_statute_book(bundle: Path, on: dt.date) -> StatuteBook:
    """Every act in force on `on` (not repealed) with its articles in that version that have text
    and are not deleted. Two acts in force under one name keep the one promulgated last."""
    report = BookReport()
    book: StatuteBook = {}
    promulgated: dict[str, dt.date] = {}
    try:
        for history, _, _ in read_histories(bundle, set(), report):
            # the version in force: the last, in the bundle's (promulgation) order, whose 시행일자
            # has come, as the verifier decides (verifier.versions.in_force)
            sequence, version = max(((index, candidate) for index, candidate in enumerate(history.versions, 1)
                                     if candidate.effective_on is not None and candidate.effective_on <= on),
                                    key=lambda pair: pair[0], default=(0, None))
            if version is None or version.change == "폐지" or version.status == "폐지":
                continue
            articles = [ArticleText(span.number, span.branch, span.title, span.text) for span in history.spans or ()
                        if span.first <= sequence <= span.last and not span.deleted and span.text]
            when = version.promulgated_on or dt.date.min
            if articles and (version.name not in book or when > promulgated[version.name]):
                book[version.name] = (version.kind, articles)
                promulgated[version.name] = when
    except ImportFileError as error:  # a corpus from part of the book would be a different corpus: stop
        raise TrainingDataError(str(error)) from error
    if report.skipped or not book:
        raise TrainingDataError(f"expected a complete statute book in {bundle}, got {len(book)} acts in force and "
                                f"these problems: {report.skipped}")
    logger.info("read %d acts in force on %s from %s", len(book), on, bundle)
    return book

