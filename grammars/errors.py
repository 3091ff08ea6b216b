"""Errors of the grammars package.

    GrammarError                 root: anything a grammar, lexicon or tokenizer cannot be turned into
    ├── UnsupportedPatternError  a regex feature the byte-level compiler does not support
    ├── LexiconError             an empty, malformed or duplicate-ridden lexicon
    ├── TokenizerError           a tokenizer without a byte mapping, or a vocabulary/model mismatch
    ├── IncompleteCitationError  canonical() asked of a citation that lacks a required field
    └── IndexBuildError          a whole build in a child process ended without storing its index (killed)
    NativeBuildError             a C source the machine's compiler could not build (callers take their
                                 Python or torch path; never raised past them)

Expected outcomes (a citation that does not parse, a token the automaton rejects) are values,
not exceptions: `parse_citation` returns None, `TokenIndex.advance` returns DEAD.
"""

from __future__ import annotations


class GrammarError(ValueError):
    """Root of the grammars package's errors; the message says what was expected and what came."""


class UnsupportedPatternError(GrammarError):
    pass


class LexiconError(GrammarError):
    pass


class TokenizerError(GrammarError):
    pass


class IncompleteCitationError(GrammarError):
    pass


class IndexBuildError(GrammarError):
    pass


class NativeBuildError(Exception):
    """A C source could not be compiled or loaded (grammars.native); the message names the compiler, the
    source and why. Not a GrammarError: no grammar is wrong, the machine lacks a working compiler."""
