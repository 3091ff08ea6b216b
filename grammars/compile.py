"""`compile_index`: a grammar and a tokenizer in, a TokenIndex out (from the disk cache when it has one)."""

from __future__ import annotations

import gc
import logging
import weakref
from pathlib import Path

from grammars.answer import AnswerAnchors, AnswerDFA
from grammars.cache import attach_trie, index_key, load_index, save_index
from grammars.child_build import build_in_child
from grammars.collector import collector_paused, release_freed_heap
from grammars.dfa import ExprDFA, LazyDFA
from grammars.errors import GrammarError, IndexBuildError, TokenizerError
from grammars.expr import Expr
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.index import TokenIndex
from grammars.literal_walk import literal_walker
from grammars.vocabulary import TokenTrie, Vocabulary

log = logging.getLogger(__name__)
# A build of at least this many states is followed by a full collection before its heap goes back: it
# finds nothing to collect, but it empties the interpreter's free lists, whose last freed tuples otherwise
# keep arenas of the build resident (47 MiB of 69 after the statute book's 5,000 acts, 116,831 states).
# A full collection walks the whole process (160 ms beside a loaded tokenizer that is not frozen): worth
# it after a build of seconds, not after one of milliseconds (the case grammar's 849 states: 20 ms).
COLLECT_AFTER_STATES = 50_000

_vocabularies: weakref.WeakKeyDictionary[object, Vocabulary] = weakref.WeakKeyDictionary()
_pinned: dict[int, tuple[object, Vocabulary]] = {}  # tokenizers that take no weak reference (Rust objects)


def prepare_first_visits(trie: TokenTrie) -> None:
    """What first visits over a vocabulary need, made with it rather than on a first mask: the C walk of its
    trie (grammars.literal_walk, its extension built by the process's first call, ~0.1 s) and the trie's
    number runs (`TokenTrie.digit_runs`, 1.7 ms for DeepSeek's, which the first state before a digit paid)."""
    literal_walker(trie)
    trie.digit_runs  # noqa: B018


def vocabulary_of(tokenizer: object, vocab_size: int | None = None) -> Vocabulary:
    """The Vocabulary of a tokenizer (a Vocabulary, a Hugging Face tokenizer or a `tokenizers.Tokenizer`),
    converted once per tokenizer object (the conversion and the byte trie take a second or two for a 130k
    vocabulary; what first visits need is made then too, `prepare_first_visits`)."""
    if isinstance(tokenizer, Vocabulary):
        vocabulary = tokenizer
    else:
        known: Vocabulary | None
        try:
            known = _vocabularies.get(tokenizer)
        except TypeError:
            pinned = _pinned.get(id(tokenizer))
            known = None if pinned is None else pinned[1]
        if known is not None:
            vocabulary = known
        else:
            vocabulary = Vocabulary.from_tokenizer(tokenizer)
            prepare_first_visits(vocabulary.trie)
            try:
                _vocabularies[tokenizer] = vocabulary
            except TypeError:
                _pinned[id(tokenizer)] = (tokenizer, vocabulary)
    if vocab_size is not None and vocab_size != vocabulary.size:
        if vocab_size < len(vocabulary.tokens):
            raise TokenizerError(
                f"expected a model vocabulary of at least the tokenizer's {len(vocabulary.tokens)} ids, "
                f"got {vocab_size}"
            )
        vocabulary = vocabulary.with_size(vocab_size)
    return vocabulary


def automaton_of(grammar: CitationGrammar | AnswerGrammar | Expr, anchors: AnswerAnchors | None = None) -> LazyDFA:
    """The grammar's byte automaton; an answer grammar's over `anchors` when given (shared with the other
    answer languages they serve, grammars.answer)."""
    if isinstance(grammar, AnswerGrammar):
        return AnswerDFA(grammar, anchors)
    if anchors is not None:
        raise GrammarError(f"expected AnswerAnchors only with an AnswerGrammar, got a {type(grammar).__name__}")
    if isinstance(grammar, CitationGrammar):
        return ExprDFA(grammar.expr)
    if isinstance(grammar, Expr):
        return ExprDFA(grammar)
    raise GrammarError(f"expected a CitationGrammar, AnswerGrammar or Expr, got {type(grammar).__name__}")


def compile_index(
    grammar: CitationGrammar | AnswerGrammar | Expr,
    tokenizer: object,
    *,
    cache_dir: str | Path | None = None,
    vocab_size: int | None = None,
    build: bool = True,
    in_child: bool = False,
    anchors: AnswerAnchors | None = None,
) -> TokenIndex:
    """The token index of `grammar` over `tokenizer` (a Vocabulary, a Hugging Face tokenizer or a
    `tokenizers.Tokenizer`). `vocab_size` is the model's logits width when it pads past the tokenizer.

    With `cache_dir`, a stored index is loaded; on a miss the index is compiled and, if `build`, every
    reachable state is computed and stored, and the index is served from what was stored, as a restart
    would load it (`save_index` stores a lazily grown index later); with `in_child` too, that build runs in
    a child process (`grammars.child_build`: this one holds neither its heap nor the GIL meanwhile). Without
    `cache_dir`, states are computed as they are reached. `anchors`: an answer grammar's free-text part,
    compiled already for another answer language with the same anchors (`AnswerAnchors`).
    """
    vocabulary = vocabulary_of(tokenizer, vocab_size)
    key = ""
    if cache_dir is not None:
        key = index_key(grammar, vocabulary)
        attach_trie(vocabulary, Path(cache_dir))
        cached = load_index(Path(cache_dir), key, vocabulary)
        if cached is not None:
            return cached
        if build:
            log.info("building index %s once, every state (the statute book's answer language: over a minute), "
                     "to store it in %s", key, cache_dir)
        try:
            report = build_in_child(grammar, vocabulary, Path(cache_dir), key) if build and in_child else None
        except OSError as error:  # its build could not be stored (a full disk, a folder it may not write)
            _unstored(key, cache_dir, error)
            with collector_paused():
                return TokenIndex(automaton_of(grammar, anchors), vocabulary, key)
        if report is not None:
            peak = "" if report.peak_rss_mib is None else f", its peak RSS {report.peak_rss_mib:.0f} MiB"
            log.info("built and stored %d states for index %s in a child process: %.1f s%s",
                     report.states, key, report.seconds, peak)
            built = load_index(Path(cache_dir), key, vocabulary)
            if built is None:
                raise IndexBuildError(f"expected the index {key} the child process stored in {cache_dir}, found none")
            return built
    with collector_paused():  # what the compile makes lives as long as the index: a collection would only walk it
        automaton = automaton_of(grammar, anchors)
        index = TokenIndex(automaton, vocabulary, key)
        if cache_dir is None or not build:  # a whole build computes every state anyway
            warm_up(index, warm_citations(grammar))
    if cache_dir is not None and build:
        try:
            save_index(index, Path(cache_dir))
        except OSError as error:
            _unstored(key, cache_dir, error)
            return index  # as far as it was built: the rest is computed as it is reached
        log.info("built and stored %d states for index %s", index.state_count, key)
        # served from what was stored, as after a restart: the built automaton's Python objects (1.9 million,
        # ~1 GiB, for the statute book's answer language) go with it (no cycle among them: reference counts
        # free them), and the heap they held goes back
        stored = load_index(Path(cache_dir), key, vocabulary)
        if stored is not None:
            states = index.state_count
            del index, automaton
            if states >= COLLECT_AFTER_STATES:
                gc.collect()  # only a full collection empties the interpreter's free lists (see COLLECT_AFTER_STATES)
            release_freed_heap()
            return stored
    return index


def warm_citations(grammar: CitationGrammar | AnswerGrammar | Expr) -> tuple[tuple[str, str], ...]:
    """The citations along whose shared part a grammar's index computes the rows when compiled
    (`CitationGrammar.warm`). None for an answer grammar: served whole from the disk cache, or narrowed per
    request, whose compile the warm-up made three times as long (9 → 33 ms median on a slow VM), past the
    20 ms a narrowing has; a narrowing's first citation pays its tail instead."""
    return grammar.warm if isinstance(grammar, CitationGrammar) else ()


def warm_up(index: TokenIndex, citations: tuple[tuple[str, str], ...]) -> None:
    """The rows of the states every tokenization of each citation's shared part passes through after its
    lead, and their tables of next states: the states every citation goes through (a statute's provision
    tail, whose number states took a first visit 0.5-1.3 ms each, the slowest steps of a lazily grown index,
    and whose table after ` 제`, a thousand number tokens, 0.1 ms more on the step that left it), made with
    the index rather than by its first citation. By tokens, not byte by byte: a token that stays inside a
    literal word reaches a state of its own (the C walk does not merge a node with an equal one of another
    word: grammars.index), which a walk by bytes never meets (`대법원 202`, as `2024` begins, was warmed as
    `209` of the warm citation's `2099`, one node for both there)."""
    row = index.allocate_bitmask()[0]
    trie = index.vocabulary.trie
    for lead, shared in citations:
        text = shared.encode()
        start = index.advance_bytes(index.initial_state, lead.encode())
        reached: dict[int, set[int]] = {0: {start}} if start >= 0 else {}  # by offset into `text`
        furthest = 0
        for offset in range(len(text)):
            for state in sorted(reached.pop(offset, ())):
                furthest = offset
                index.fill_bitmask(state, row)
                for token, end in trie.tokens_spelling(text, offset):
                    target = index.advance(state, token)  # made, with the state's table of next states
                    if target >= 0:
                        reached.setdefault(end, set()).add(target)
        if not reached.get(len(text)):
            raise GrammarError(f"expected a citation of the grammar, got {lead + shared!r}, which dies at "
                               f"{len(lead) + len(text[:furthest].decode(errors='ignore'))}")
        for state in sorted(reached[len(text)]):
            index.fill_bitmask(state, row)
            allowed = index.masks(state).next_tokens
            if len(allowed):
                index.advance(state, int(allowed[0]))


def _unstored(key: str, cache_dir: str | Path, error: OSError) -> None:
    log.warning("serving index %s from memory: it could not be stored in %s (%s)", key, cache_dir, error)
