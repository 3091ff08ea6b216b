"""The on-disk index cache never serves an index stored by other compiler code (issue 16)."""

from __future__ import annotations

import dataclasses
import gc
import os
import platform
import shutil
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from grammars import cache
from grammars import compile as compile_module
from grammars.answer import AnswerDFA
from grammars.cache import grammar_key
from grammars.collector import release_freed_heap
from grammars.compile import compile_index
from grammars.dfa import DEAD, LazyDFA
from grammars.expr import Literals, Regex, seq
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.languages.answer import answer_grammar
from grammars.languages.lexicon import Lexicon
from grammars.languages.statute import statute_grammar
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


def test_an_index_built_on_a_miss_is_served_from_what_was_stored(tmp_path) -> None:
    """As after a restart: the built automaton's Python objects (a gigabyte for the statute book) are not kept."""
    built = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    assert built.stored is not None and len(list(tmp_path.glob("index-*.arrays"))) == 1
    assert built.advance_bytes(built.initial_state, "민법 제12조".encode()) >= 0


def _loaded_not_rebuilt(grammar, vocabulary, cache_dir: Path) -> bool:
    """A second compile loads the stored file rather than building and writing it again (a write replaces
    the file by a new one: another inode)."""
    files = {path: path.stat().st_ino for path in cache_dir.glob("index-*.arrays")}
    again = compile_index(grammar, vocabulary, cache_dir=cache_dir)
    return again.stored is not None and {path: path.stat().st_ino for path in cache_dir.glob("index-*.arrays")} == files


def test_an_index_stored_by_another_compiler_is_not_loaded(tmp_path, monkeypatch) -> None:
    stored = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    assert _loaded_not_rebuilt(GRAMMAR, VOCAB, tmp_path)  # same compiler: loaded
    monkeypatch.setattr(cache, "_COMPILER", lambda: "another compiler")
    rebuilt = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    assert rebuilt.key != stored.key  # built again and stored beside the other compiler's, not loaded from it
    assert len(list(tmp_path.glob("index-*.arrays"))) == 2


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


BOOK = {"민법": ["1", "2", "3의2"], "형법": None, "근로기준법": ["23", "23의2"]}


def _book_with(**changes: list[str] | None) -> dict[str, list[str] | None]:
    return {**BOOK, **changes}


@pytest.mark.parametrize(
    ("other", "forbid_shorthand"),
    [
        (_book_with(민법=["1", "2", "3의3"]), (False, False)),
        (_book_with(형법=["1"]), (False, False)),
        ({name: BOOK[name] for name in ("민법", "형법")}, (False, False)),
        (BOOK, (False, True)),
        (Lexicon.build(BOOK, aliases={"민": "민법"}), (False, False)),
        (Lexicon.build(BOOK, informal={"근기법": "근로기준법"}), (True, True)),  # shorthand heads hold it
    ],
    ids=["one-label-differs", "any-article-becomes-a-list", "one-act-fewer", "shorthand-forbidden", "an-alias",
         "an-informal-name"],
)
def test_a_statute_grammar_named_by_its_recipe_changes_key_with_its_input(other, forbid_shorthand) -> None:
    grammar = statute_grammar(BOOK, forbid_shorthand=forbid_shorthand[0])
    changed = statute_grammar(other, forbid_shorthand=forbid_shorthand[1])
    assert grammar.recipe and changed.recipe
    assert changed != grammar
    assert grammar_key(changed) != grammar_key(grammar)
    assert grammar_key(statute_grammar(dict(BOOK), forbid_shorthand=forbid_shorthand[0])) == grammar_key(grammar)


def test_a_recipe_key_changes_with_the_compiler(monkeypatch) -> None:
    grammar = statute_grammar(BOOK)
    before = grammar_key(grammar)
    monkeypatch.setattr(cache, "_COMPILER", lambda: "another compiler")
    assert grammar_key(grammar) != before


def test_a_grammar_changed_after_it_was_made_is_hashed_whole() -> None:
    """dataclasses.replace does not copy the recipe: the narrowed answer grammar replaces an anchor."""
    grammar = statute_grammar(BOOK)
    changed = dataclasses.replace(grammar, anchor=GRAMMAR.anchor)
    assert changed.recipe == ""
    assert grammar_key(changed) == grammar_key(CitationGrammar(grammar.name, grammar.expr, GRAMMAR.anchor))
    assert grammar_key(changed) != grammar_key(grammar)


def test_a_recipe_key_is_the_same_in_every_process() -> None:
    """The lexicon's digest reads its input in order, never a set's (whose order is the process's)."""
    program = ("from grammars import statute_grammar; from grammars.cache import grammar_key; "
               f"print(grammar_key(statute_grammar({BOOK!r})))")
    keys = {
        subprocess.run([sys.executable, "-c", program], env={**os.environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout
        for seed in ("1", "2")
    }
    assert keys == {grammar_key(statute_grammar(BOOK)) + "\n"}


def test_an_index_stored_for_one_lexicon_is_not_loaded_for_another(tmp_path) -> None:
    vocabulary = Vocabulary((None, *sorted({p.encode() for p in ["민법", "형법", " 제", "1", "2", "3", "조", "의"]})),
                            frozenset({0}))
    stored = compile_index(statute_grammar(BOOK), vocabulary, cache_dir=tmp_path)
    assert _loaded_not_rebuilt(statute_grammar(BOOK), vocabulary, tmp_path)
    other = compile_index(statute_grammar(_book_with(민법=["1", "2"])), vocabulary, cache_dir=tmp_path)
    assert other.key != stored.key and len(list(tmp_path.glob("index-*.arrays"))) == 2  # built and stored beside it
    assert other.automaton.walk(other.initial_state, "민법 제3조의2".encode()) == DEAD


def test_the_automaton_compiles_with_the_collector_paused_and_left_as_it_was(monkeypatch) -> None:
    """What the compile makes lives as long as the index: each collection during it would only walk it
    (at the full statute book, a full one costs 100 ms in a process whose model is frozen)."""
    seen: list[bool] = []
    compiled = compile_module.automaton_of

    def watched(grammar: CitationGrammar, anchors: None) -> object:
        seen.append(gc.isenabled())
        return compiled(grammar, anchors)

    monkeypatch.setattr(compile_module, "automaton_of", watched)
    assert gc.isenabled()
    compile_index(GRAMMAR, VOCAB)
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.parametrize("answer", [False, True], ids=["statute", "answer"])
def test_a_build_hands_its_freed_heap_back_once_the_built_automaton_is_gone(answer, tmp_path, monkeypatch) -> None:
    """The built automaton's objects, its byte NFAs included, are freed before the heap goes back, and by
    reference counts alone, with the collector off: no cycle among them, so no full collection of the
    process follows a small build (160 ms beside a loaded tokenizer). Else the process keeps its peak (and
    a service that then freezes its objects keeps them for good)."""
    built: list[weakref.ref[object]] = []
    made = compile_module.automaton_of

    def watched(grammar: CitationGrammar | AnswerGrammar, anchors: None) -> LazyDFA:
        automaton = made(grammar, anchors)
        parts = [automaton.citations, automaton.free.nfa] if isinstance(automaton, AnswerDFA) else [automaton.nfa]
        built.extend(weakref.ref(part) for part in (automaton, *parts))
        return automaton

    alive_at_release: list[bool] = []
    monkeypatch.setattr(compile_module, "automaton_of", watched)
    monkeypatch.setattr(
        compile_module, "release_freed_heap", lambda: alive_at_release.append(any(ref() for ref in built))
    )
    collections: list[object] = []
    monkeypatch.setattr(gc, "collect", lambda *args: collections.append(args))
    grammar = answer_grammar(lexicon=BOOK) if answer else statute_grammar(BOOK)
    gc.disable()
    try:
        compile_index(grammar, VOCAB, cache_dir=tmp_path)
    finally:
        gc.enable()
    assert len(built) == (3 if answer else 2) and alive_at_release == [False] and not collections


def test_a_large_build_empties_the_free_lists_before_its_heap_goes_back(tmp_path, monkeypatch) -> None:
    """Past COLLECT_AFTER_STATES a full collection runs once, before the heap is handed back: it empties
    the interpreter's free lists, whose tuples otherwise keep arenas of the build resident."""
    events: list[str] = []
    monkeypatch.setattr(compile_module, "COLLECT_AFTER_STATES", 1)
    monkeypatch.setattr(gc, "collect", lambda *args: events.append(f"collect{args}"))
    monkeypatch.setattr(compile_module, "release_freed_heap", lambda: events.append("release"))
    compile_index(statute_grammar(BOOK), VOCAB, cache_dir=tmp_path)
    assert events == ["collect()", "release"]
    compile_index(statute_grammar(BOOK), VOCAB, cache_dir=tmp_path)  # loaded: nothing built, nothing freed
    assert events == ["collect()", "release"]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_the_freed_heap_goes_back_where_the_c_library_is_glibc() -> None:
    assert release_freed_heap()


def test_an_index_neither_written_nor_loaded_for_a_month_is_removed_when_another_is_stored(tmp_path) -> None:
    """A service stores one index per lexicon it compiled (a new one after each import that moved it), and
    none was ever removed: 5 of 14 MiB each after a few reloads, without end."""
    compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    (used,) = tmp_path.glob("index-*.arrays")
    unused = used.with_name("index-unused.arrays")
    shutil.copyfile(used, unused)
    month_ago = time.time() - (cache.UNUSED_INDEX_DAYS + 1) * 86_400
    for path in (used, unused):
        os.utime(path, (month_ago, month_ago))
    assert compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path).stored is not None  # loaded: marked as used
    assert used.stat().st_mtime > month_ago + 86_400
    other = CitationGrammar("statute", seq(Literals(("민법",)), " 제", Regex("[1-9]"), "조"),
                            seq(Literals(("민법",)), " 제", Regex("[0-9]")))
    compile_index(other, VOCAB, cache_dir=tmp_path)  # stores a new index
    assert used.exists() and not unused.exists()
    assert len(list(tmp_path.glob("index-*.arrays"))) == 2
