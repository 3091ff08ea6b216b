"""Per-request citation options as vLLM carries them: flat `citegen_*` keys of
`SamplingParams.extra_args` (the REST API's `vllm_xargs` takes only flat strings, numbers and lists).

    citegen_grammar   "answer" (default: free text whose citations are constrained), "citation"
                      (the whole output is one citation, case or statute), "case", "statute"
    citegen_acts      list of act names: statutes may cite only these (narrowing), each by the name the
                      lexicon cites it by (`민소법` narrows to 민사소송법); [] with the answer grammar: no
                      statute citations at all
    citegen_courts    list of court names: cases may cite only these; [] with answer: no cases
    citegen_lexicon   path of the verifier's lexicon export (`citegen-admin export -o FILE`): statute
                      names and the article numbers the database holds; default grammars' built-in one
    citegen_think     1 (default): text inside `<think>`…`</think>` is never constrained; 0: it is
    citegen_shorthand 0 (default): shorthand anchors (`대판`, `같은 법 제3`) must go on as canonical
                      citations, as citegen's own service does; 1: shorthand is left as free text

A request with no `citegen_*` key is not constrained at all. Everything here is checked in
`CitationOptions.from_extra_args`, which the processor's `validate_params` calls in the front end,
so a malformed request fails alone with a message instead of reaching the engine's worker.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from citegen.constraint import Narrowing
from citegen.errors import CitegenError, RequestError
from citegen.narrowings import Narrowings, narrowed_lexicon
from grammars import (
    COURTS_BY_NAME,
    DEFAULT_BYPASS,
    Alt,
    AnswerGrammar,
    CitationGrammar,
    GrammarError,
    Lexicon,
    as_lexicon,
    case_grammar,
    statute_grammar,
)

PREFIX = "citegen_"
GRAMMARS = ("answer", "citation", "case", "statute")
KEYS = ("grammar", "acts", "courts", "lexicon", "think", "shorthand")

ArticleLexicon = Mapping[str, Iterable[str] | None]


class ExtraArgsError(RequestError, ValueError):
    """Malformed `citegen_*` extra_args. A ValueError too: vLLM answers those as a bad request."""


@dataclass(frozen=True, slots=True)
class CitationOptions:
    grammar: str = "answer"
    narrowing: Narrowing = Narrowing()
    lexicon: str | None = None
    think: bool = True
    shorthand: bool = False

    @classmethod
    def from_extra_args(cls, extra_args: Mapping[str, Any] | None) -> CitationOptions | None:
        """The request's options, None when it asks for no constraint; raises ExtraArgsError."""
        ours = {
            key[len(PREFIX) :]: value for key, value in (extra_args or {}).items() if key.startswith(PREFIX)
        }
        if not ours:
            return None
        unknown = sorted(set(ours) - set(KEYS))
        if unknown:
            raise ExtraArgsError(
                f"expected extra_args keys among {', '.join(PREFIX + k for k in KEYS)}, "
                f"got {', '.join(PREFIX + k for k in unknown)}"
            )
        grammar = ours.get("grammar", "answer")
        if grammar not in GRAMMARS:
            raise ExtraArgsError(
                f"expected {PREFIX}grammar to be one of {', '.join(GRAMMARS)}, got {grammar!r}"
            )
        lexicon = ours.get("lexicon")
        if lexicon is not None and (not isinstance(lexicon, str) or not lexicon):
            raise ExtraArgsError(f"expected {PREFIX}lexicon to be a file path, got {lexicon!r}")
        think, shorthand = _flag(ours, "think", True), _flag(ours, "shorthand", False)
        narrowing = Narrowing(_names(ours, "courts", grammar), _names(ours, "acts", grammar))
        if narrowing.courts == () and narrowing.acts == ():
            raise ExtraArgsError(
                f"expected {PREFIX}acts or {PREFIX}courts to leave a citation kind, got both empty"
            )
        options = cls(grammar, narrowing, lexicon, think, shorthand)
        options.article_lexicon()  # an unreadable lexicon file is the request's fault: refuse it here
        options.check_names()
        return options.with_canonical_acts()

    def article_lexicon(self) -> Lexicon:
        """The lexicon file's, checked once per version of the file; grammars' built-in one without a file."""
        return as_lexicon(None if self.lexicon is None else load_lexicon(self.lexicon))

    def narrowings(self) -> Narrowings:
        """What the answer language's narrowings over this lexicon share (one per version of the lexicon
        file, `think` and `shorthand`): each narrowing compiles over it in milliseconds."""
        return _narrowings(self.article_lexicon(), self.think, self.shorthand)

    def check_names(self) -> None:
        """Every narrowing name must exist: a grammar narrowed to nothing would allow no citation."""
        courts, acts = self.narrowing.courts, self.narrowing.acts
        unknown_courts = [court for court in courts or () if court not in COURTS_BY_NAME]
        if unknown_courts:
            raise ExtraArgsError(
                f"expected court names grammars knows in {PREFIX}courts, got {unknown_courts}"
            )
        if acts is not None:
            known = self.article_lexicon()
            unknown_acts = [act for act in acts if known.citable_name(act) is None]
            if unknown_acts:
                where = self.lexicon or "grammars' built-in lexicon"
                raise ExtraArgsError(
                    f"expected act names found in {where} in {PREFIX}acts, got {unknown_acts}"
                )
        if (self.grammar == "case" and acts is not None) or (self.grammar == "statute" and courts is not None):
            raise ExtraArgsError(
                f"expected no narrowing the {self.grammar} grammar cannot use, got {self.narrowing}"
            )

    def with_canonical_acts(self) -> CitationOptions:
        """The acts narrowed to by the names the lexicon cites them by: narrowed to `민소법`, a grammar
        would write `민소법 제1조` and refuse `민사소송법 제1조` (citegen's service maps names so at its edge)."""
        acts = self.narrowing.acts
        if not acts:
            return self
        known = self.article_lexicon()
        canonical = tuple(dict.fromkeys(known.citable_name(act) or act for act in acts))
        return self if canonical == acts else replace(self, narrowing=replace(self.narrowing, acts=canonical))

    def grammar_object(self) -> AnswerGrammar | CitationGrammar:
        """The language these options ask for, built from grammars' one definition of a citation."""
        try:
            if self.grammar == "answer":
                return self.narrowings().grammar(self.narrowing)
            lexicon = self.article_lexicon()
            narrowed = narrowed_lexicon(lexicon, self.narrowing.acts)
            parts = []
            if self.grammar in ("citation", "case"):
                parts.append(case_grammar(courts=self.narrowing.courts))
            if self.grammar in ("citation", "statute"):
                parts.append(statute_grammar(narrowed))
        except GrammarError as error:
            raise ExtraArgsError(
                f"expected options that make a citation grammar, got {self}: {error}"
            ) from error
        if len(parts) == 1:
            return parts[0]
        return CitationGrammar(
            self.grammar, Alt(tuple(p.expr for p in parts)), Alt(tuple(p.anchor for p in parts)),
            warm=tuple(citation for part in parts for citation in part.warm),
        )

    def as_extra_args(self) -> dict[str, Any]:
        """The inverse of from_extra_args, for callers that build vLLM requests."""
        args: dict[str, Any] = {
            PREFIX + "grammar": self.grammar,
            PREFIX + "think": int(self.think),
            PREFIX + "shorthand": int(self.shorthand),
        }
        if self.narrowing.acts is not None:
            args[PREFIX + "acts"] = list(self.narrowing.acts)
        if self.narrowing.courts is not None:
            args[PREFIX + "courts"] = list(self.narrowing.courts)
        if self.lexicon is not None:
            args[PREFIX + "lexicon"] = self.lexicon
        return args


CONFIG_KEY = "citegen"  # citegen's entry of vLLM's additional_config (engine-wide settings)


def engine_config(index_cache_dir: Path | None, served: CitationOptions | None = None) -> dict[str, Any]:
    """citegen's entry of vLLM's `additional_config`, read by the processor in every worker."""
    return {
        CONFIG_KEY: {
            "index_cache_dir": None if index_cache_dir is None else str(index_cache_dir),
            "served": None if served is None else served.as_extra_args(),
        }
    }


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """citegen's entry of `additional_config` as a worker reads it (`engine_config` writes it)."""

    index_cache_dir: Path | None = None
    served: CitationOptions | None = None

    @classmethod
    def of(cls, additional_config: object) -> WorkerConfig:
        """Raises CitegenError for an entry `engine_config` would not write; ExtraArgsError for served
        options a request could not carry either (an unreadable lexicon file among them)."""
        ours = additional_config.get(CONFIG_KEY) if isinstance(additional_config, Mapping) else None
        if ours is None:
            return cls()
        if not isinstance(ours, Mapping) or set(ours) - {"index_cache_dir", "served"}:
            raise CitegenError(
                f"expected additional_config[{CONFIG_KEY!r}] to be {{'index_cache_dir': path or None, "
                f"'served': citegen_* options or None}}, got {ours!r}"
            )
        found, served = ours.get("index_cache_dir"), ours.get("served")
        return cls(
            None if found is None else Path(found),
            None if served is None else CitationOptions.from_extra_args(served),
        )


def _flag(ours: Mapping[str, Any], key: str, default: bool) -> bool:
    value = ours.get(key, int(default))
    if value not in (0, 1) or isinstance(value, float):  # True/False pass as 1/0
        raise ExtraArgsError(f"expected {PREFIX}{key} to be 0 or 1, got {value!r}")
    return bool(value)


def _names(ours: Mapping[str, Any], key: str, grammar: str) -> tuple[str, ...] | None:
    value = ours.get(key)
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and not value and grammar == "answer":
        return ()  # this kind of citation is left out of the answer language
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
        raise ExtraArgsError(f"expected {PREFIX}{key} to be a non-empty list of names, got {value!r}")
    if not all(isinstance(name, str) and name for name in value):
        raise ExtraArgsError(f"expected {PREFIX}{key} to hold non-empty strings, got {value!r}")
    return tuple(value)


def load_lexicon(path: str) -> Lexicon:
    """The verifier's `{act: [article labels] or null}` export, read and checked once per file version."""
    return _read_lexicon(path, _stamp(path))


def _stamp(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError as error:
        raise ExtraArgsError(f"expected a readable lexicon file at {path}, got: {error.strerror}") from None


# A Lexicon per file version (`_read_lexicon`, 8 kept), each with up to 4 Narrowings (think × shorthand)
@functools.lru_cache(maxsize=32)
def _narrowings(lexicon: Lexicon, think: bool, shorthand: bool) -> Narrowings:
    return Narrowings(lexicon, bypass=DEFAULT_BYPASS if think else (), forbid_shorthand=not shorthand)


@functools.lru_cache(maxsize=8)
def _read_lexicon(path: str, stamp: int) -> Lexicon:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, ValueError) as error:
        raise ExtraArgsError(f"expected a JSON lexicon export at {path}, got: {error}") from None
    if not isinstance(data, dict) or not data:
        raise ExtraArgsError(
            f"expected a non-empty JSON object of act names at {path}, got {type(data).__name__}"
        )
    try:
        return as_lexicon(data)
    except GrammarError as error:
        raise ExtraArgsError(f"expected a valid lexicon at {path}, got: {error}") from None
