"""The engine over the database's answer language: what `citegen ask` and `citegen serve` both
build. Imports no web stack, so `ask` loads the model without FastAPI."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from citegen.constraint import Narrowing
from citegen.engine import Engine
from citegen.models import LoadedModel
from citegen.narrowings import AnyLexicon, constraint_library, narrowed_answer_grammar
from grammars import AnswerGrammar

ArticleLexicon = Mapping[str, Iterable[str] | None]  # the verifier's lexicon_data()


ALL = Narrowing()  # the whole answer language: every court, every act of the lexicon


def answer_grammar_for(
    lexicon: AnyLexicon, narrowing: Narrowing = ALL, *, forbid_shorthand: bool = True
) -> AnswerGrammar:
    """The answer language the service constrains with; `forbid_shorthand` (Settings.forbid_shorthand)
    makes every head written otherwise than canonically unwritable (`형법제355조`, `대판 2…`, a bare
    `2024도4202`), not only free text."""
    return narrowed_answer_grammar(lexicon, narrowing, forbid_shorthand=forbid_shorthand)


def build_engine(
    loaded: LoadedModel,
    lexicon: ArticleLexicon,
    max_batch: int,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> Engine:
    library = constraint_library(
        loaded.vocabulary, loaded.vocab_size, lexicon, forbid_shorthand=forbid_shorthand, cache_dir=cache_dir
    )
    return Engine(loaded, library, max_batch=max_batch)
