"""The on-disk index cache never serves an index stored by other compiler code (issue 16)."""

from __future__ import annotations

import shutil

import pytest

from grammars import cache
from grammars.cache import grammar_key
from grammars.compile import compile_index
from grammars.expr import Literals, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.patterns import PACKAGE_DIR, compiler_digest
from grammars.vocabulary import Vocabulary

GRAMMAR = CitationGrammar("statute", seq(Literals(("민법", "형법")), " 제", Regex("[1-9][0-9]?"), "조"),
                          seq(Literals(("민법", "형법")), " 제", Regex("[0-9]")))
VOCAB = Vocabulary((None, *sorted({p.encode() for p in ["민법", "형법", " 제", "1", "2", "12", "조", " ", "제"]})),
                   frozenset({0}))


@pytest.mark.parametrize("module", ["dfa.py", "index.py", "answer.py", "cache.py", "languages/statute.py"],
                         ids=lambda m: m)
def test_a_changed_compiler_source_changes_the_key(tmp_path, module) -> None:
    copy = tmp_path / "grammars"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert compiler_digest(copy) == compiler_digest()
    (copy / module).write_text((copy / module).read_text() + "\n# one more line\n")
    changed = compiler_digest(copy)
    assert changed != compiler_digest()
    assert grammar_key(GRAMMAR, changed) != grammar_key(GRAMMAR)


def test_an_index_stored_by_another_compiler_is_not_loaded(tmp_path, monkeypatch) -> None:
    stored = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    assert compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path).stored is not None  # same compiler: loaded
    monkeypatch.setattr(cache, "_COMPILER", lambda: "another compiler")
    rebuilt = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    assert rebuilt.stored is None and rebuilt.key != stored.key
    assert len(list(tmp_path.glob("index-*.npz"))) == 2


@pytest.mark.parametrize(
    "other",
    [
        CitationGrammar("statute", seq(Literals(("민법", "형법")), " 제", Regex("[1-9][0-9]?"), "조"),
                        seq(Literals(("민법", "형법")), " 제", Regex("[1-9]"))),
        CitationGrammar("statute", seq(Literals(("민법형", "법")), " 제", Regex("[1-9][0-9]?"), "조"),
                        seq(Literals(("민법", "형법")), " 제", Regex("[0-9]"))),
        CitationGrammar("statute", seq(Literals(("민법",)), " 제", Regex("[1-9][0-9]?"), "조"),
                        seq(Literals(("민법", "형법")), " 제", Regex("[0-9]"))),
        CitationGrammar("case", GRAMMAR.expr, GRAMMAR.anchor),
    ],
    ids=["another-anchor", "words-split-elsewhere", "one-word-fewer", "another-name"],
)
def test_grammars_that_differ_anywhere_have_different_keys(other) -> None:
    assert grammar_key(other) != grammar_key(GRAMMAR)
    assert grammar_key(CitationGrammar(GRAMMAR.name, GRAMMAR.expr, GRAMMAR.anchor)) == grammar_key(GRAMMAR)


def test_words_holding_the_separator_do_not_collide_with_split_words() -> None:
    """Literals are hashed as their words joined by NUL: a word that holds a NUL is not two words."""
    keys = {grammar_key(Literals(words)) for words in [("a\0b",), ("a", "b"), ("a\0", "b"), ("a", "\0b"), ("ab",)]}
    assert len(keys) == 5
