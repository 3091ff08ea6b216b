"""The engine over the database's answer language: what `citegen ask` and `citegen serve` both
build. Imports no web stack, so `ask` loads the model without FastAPI."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

from citegen.constraint import CitationLanguage, ConstraintLibrary, Narrowing, compile_language
from citegen.engine import Engine
from citegen.models import LoadedModel
from citegen.narrowings import AnyLexicon, Narrowings, narrowed_answer_grammar
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


def constraint_library(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> ConstraintLibrary:
    """The answer language and its narrowings over `lexicon`, each compiled when first asked for: the
    whole language parsed with the database's names, built whole once with `cache_dir` and loaded from disk
    afterwards, so serving never pays for one of its states on first visit; a narrowing in milliseconds
    over what every narrowing shares (`Narrowings`, ready once the library is prepared), its states
    computed as generation first reaches them (built whole, one took a minute over the statute book)."""
    known = as_lexicon(dict(lexicon))  # checked once (400,000 labels for the statute book), used by all
    parser = CitationParser.for_lexicon(known)
    narrowings = Narrowings(known, forbid_shorthand=forbid_shorthand)

    def language(narrowing: Narrowing) -> CitationLanguage:
        if narrowing == ALL:
            grammar = narrowings.grammar(ALL)
            return compile_language(grammar, loaded.vocabulary, parser.parse, cache_dir=cache_dir)
        return narrowings.language(narrowing, loaded.vocabulary, parser.parse)

    return ConstraintLibrary(
        language, loaded.vocab_size, prepare=functools.partial(narrowings.prepare, loaded.vocabulary)
    )


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
