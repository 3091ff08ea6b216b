"""Re-generation of an unresolvable citation: the model re-decodes the slot from the prose before
it, under an automaton whose only strings are citations — case citations and the database-aware
statute grammar (only articles the database holds) — so what comes back is always well-formed.
Whether it is true is for the verifier to say and a reviewer to decide: it is only a suggestion.

The slot is narrowed by what the draft wrote: a case stays a case (of the written court when one
was), a statute a statute (of the written act when the database knows it). Decoding is greedy, so
the same draft gives the same suggestion.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from grammars import COURTS_BY_NAME, CaseCitation, CitationParser, ParsedCitation, case_grammar, statute_grammar
from grammars.compile import compile_index
from grammars.expr import Alt
from grammars.grammar import CitationGrammar

from citegen.constraint import CitationLanguage, ConstraintLibrary, Narrowing
from citegen.engine import Engine, Request
from citegen.events import Failed, Finished
from citegen.models import LoadedModel, load_model
from citegen.sampling import SamplingParams

logger = logging.getLogger(__name__)

ArticleLexicon = Mapping[str, Iterable[str] | None]  # the verifier's lexicon_data(): {act: article labels}
SLOT_TOKENS = 64  # a long canonical case citation is about 40 tokens of a small byte-level BPE


def slot_language(loaded: LoadedModel, lexicon: ArticleLexicon, parser: CitationParser,
                  narrowing: Narrowing) -> CitationLanguage:
    """The citation-only language for a slot: cases unless `courts == ()`, statutes unless `acts == ()`."""
    parts: list[CitationGrammar] = []
    if narrowing.courts != ():
        parts.append(case_grammar(courts=narrowing.courts))
    if narrowing.acts != ():
        acts = lexicon if narrowing.acts is None else {act: lexicon[act] for act in narrowing.acts}
        parts.append(statute_grammar(lexicon=acts))
    grammar = CitationGrammar("slot", Alt(tuple(p.expr for p in parts)), Alt(tuple(p.anchor for p in parts)))
    index = compile_index(grammar, loaded.vocabulary)
    return CitationLanguage(index, None, parser.parse)


def narrowing_for(written: ParsedCitation, lexicon: ArticleLexicon) -> Narrowing:
    if isinstance(written, CaseCitation):
        court = written.court if written.court in COURTS_BY_NAME else None
        return Narrowing(courts=(court,) if court else None, acts=())
    act = getattr(written, "act", None)
    return Narrowing(courts=(), acts=(act,) if act in lexicon else None)


class EngineRegenerator:
    """One engine per worker process, its constraints built from the database's lexicon."""

    def __init__(self, loaded: LoadedModel, lexicon: ArticleLexicon, max_new_tokens: int = SLOT_TOKENS) -> None:
        self.lexicon = lexicon
        self.parser = CitationParser.for_lexicon(dict(lexicon))
        library = ConstraintLibrary(functools.partial(slot_language, loaded, lexicon, self.parser), loaded.vocab_size)
        self.engine = Engine(loaded, library, max_batch=1)
        self.sampling = SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0, seed=0)
        # the prose kept before the slot: the model's context less the slot, in characters (≥ 1 token each)
        self.context_chars = max(1, loaded.context_length - max_new_tokens - 2)

    @classmethod
    def load(cls, model_path: Path, lexicon: ArticleLexicon, device: str = "auto") -> EngineRegenerator:
        return cls(load_model(model_path, device), lexicon)

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        prompt = (before.strip() or after.strip())[-self.context_chars:]
        if not prompt:
            return None
        request = Request(prompt=prompt, sampling=self.sampling, narrowing=narrowing_for(written, self.lexicon))
        for event in self.engine.stream(request):
            if isinstance(event, Failed):
                logger.warning("re-generation failed: %s", event.error)
                return None
            if isinstance(event, Finished):
                text = event.text.strip()
                return text if self.parser.parse(text) is not None else None
        return None
