"""The engine over the database's answer language: what `citegen ask` and `citegen serve` both
build. Imports no web stack, so `ask` loads the model without FastAPI."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

from citegen.constraint import (
    AnyLexicon,
    CitationLanguage,
    ConstraintLibrary,
    Narrowing,
    compile_language,
    narrowed_answer_grammar,
)
from citegen.engine import Engine
from citegen.models import LoadedModel
from grammars import AnswerGrammar, CitationParser, as_lexicon

ArticleLexicon = Mapping[str, Iterable[str] | None]  # the verifier's lexicon_data()


ALL = Narrowing()  # the whole answer language: every court, every act of the lexicon


def answer_grammar_for(
    lexicon: AnyLexicon, narrowing: Narrowing = ALL, *, forbid_shorthand: bool = True
) -> AnswerGrammar:
    """The answer language the service constrains with; `forbid_shorthand` (Settings.forbid_shorthand)
    makes every head written otherwise than canonically unwritable (`형법제355조`, `대판 2…`, a bare
    `2024도4202`), not only free text."""
    return narrowed_answer_grammar(lexicon, narrowing, forbid_shorthand=forbid_shorthand)


def answer_language(
    loaded: LoadedModel,
    lexicon: AnyLexicon,
    parser: CitationParser,
    narrowing: Narrowing,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> CitationLanguage:
    """The whole-answer language over the model's vocabulary: free text, citations of the
    database's acts (and of every court), parsed with the database's names. With `cache_dir` the
    index is built whole once and loaded from disk afterwards, so serving never pays for a state
    computed on first visit."""
    grammar = answer_grammar_for(lexicon, narrowing, forbid_shorthand=forbid_shorthand)
    return compile_language(grammar, loaded.vocabulary, parser.parse, cache_dir=cache_dir)


def constraint_library(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> ConstraintLibrary:
    """The answer language and its narrowings over `lexicon`, each compiled when first asked for."""
    known = as_lexicon(dict(lexicon))  # checked once (400,000 labels for the statute book), used by all
    parser = CitationParser.for_lexicon(known)
    language = functools.partial(
        answer_language, loaded, known, parser, forbid_shorthand=forbid_shorthand, cache_dir=cache_dir
    )
    return ConstraintLibrary(language, loaded.vocab_size)


def build_engine(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    max_batch: int,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> Engine:
    library = constraint_library(loaded, lexicon, forbid_shorthand=forbid_shorthand, cache_dir=cache_dir)
    return Engine(loaded, library, max_batch=max_batch)
