"""Re-generation of an unresolvable citation: the model re-decodes the slot from the prose before
it under the answer automaton — free text in which every citation is well-formed, statutes from
the database-aware grammar (only articles the database holds), shorthand such as `대판` barred —
and the first citation it closes is the suggestion. Whether it is true is for the verifier to say
and a reviewer to decide.

The slot is narrowed by what the draft wrote: a case stays a case (of the written court when one
was), a statute a statute (of the written act when the database knows it). Free text around the
citation lets the model end it the way it learned to (`… 제750조에 따라`) rather than at an
end-of-text it never saw after a citation. Decoding is greedy: the same draft, the same suggestion.

The prose kept before the slot is bounded in tokens, as the model's context is (`slot_prompt`): a
Hanja character costs the shipped tokenizer 3 tokens, so a bound in characters let a Hanja-heavy
draft's prompt past the context, and the engine refused it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

from transformers import PreTrainedTokenizerBase

from citegen.constraint import CitationLanguage, ConstraintLibrary, Narrowing, compile_language
from citegen.engine import Engine, Request
from citegen.errors import RequestError
from citegen.events import CitationEnd, Failed, Finished
from citegen.models import LoadedModel, load_model
from citegen.recite.errors import RegenerationError
from citegen.sampling import SamplingParams
from grammars import COURTS_BY_NAME, CaseCitation, CitationParser, ParsedCitation, StatuteCitation, answer_grammar

ArticleLexicon = Mapping[str, Iterable[str] | None]  # the verifier's lexicon_data(): {act: article labels}
SLOT_TOKENS = 96  # a long canonical case citation is about 40 tokens of a small byte-level BPE, plus prose


def slot_language(loaded: LoadedModel, lexicon: ArticleLexicon, parser: CitationParser,
                  narrowing: Narrowing) -> CitationLanguage:
    """Answers citing cases unless `courts == ()`, statutes unless `acts == ()`, no shorthand."""
    acts = lexicon if narrowing.acts is None else {act: lexicon[act] for act in narrowing.acts}
    grammar = answer_grammar(case=narrowing.courts != (), statute=narrowing.acts != (), lexicon=acts or None,
                             courts=narrowing.courts or None, forbid_shorthand=True)
    return compile_language(grammar, loaded.vocabulary, parser.parse)


def slot_prompt(before: str, after: str, tokenizer: PreTrainedTokenizerBase, budget: int) -> str:
    """The prose a slot is re-decoded from: the text before it (after it, at the start of a text), or
    the longest end of it, in whole characters, that is at most `budget` tokens as both backends encode
    a text prompt (`tokenizer(text)`, special tokens added); "" when there is none."""

    def tokens_in(text: str) -> int:
        return len(tokenizer(text, verbose=False).input_ids)  # verbose: no warning of a prompt past the context

    text = before.strip() or after.strip()
    if tokens_in(text) <= budget:
        return text
    fits, too_long = 0, len(text)  # characters kept from the end: a count that fits, one that does not
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if tokens_in(text[len(text) - middle :].lstrip()) <= budget:
            fits = middle
        else:
            too_long = middle
    return text[len(text) - fits :].lstrip()


def narrowing_for(written: ParsedCitation, lexicon: ArticleLexicon) -> Narrowing:
    if isinstance(written, CaseCitation):
        court = written.court if written.court in COURTS_BY_NAME else None
        return Narrowing(courts=(court,) if court else None, acts=())
    act = written.act if isinstance(written, StatuteCitation) else None
    return Narrowing(courts=(), acts=(act,) if act is not None and act in lexicon else None)


class EngineRegenerator:
    """One engine per worker process, its constraints built from the database's lexicon."""

    def __init__(self, loaded: LoadedModel, lexicon: ArticleLexicon, max_new_tokens: int = SLOT_TOKENS) -> None:
        self.lexicon = lexicon
        self.tokenizer = loaded.tokenizer
        self.parser = CitationParser.for_lexicon(dict(lexicon))
        library = ConstraintLibrary(functools.partial(slot_language, loaded, lexicon, self.parser), loaded.vocab_size)
        self.engine = Engine(loaded, library, max_batch=1)
        self.sampling = SamplingParams(max_new_tokens=max_new_tokens, temperature=0.0, seed=0)
        # the prose kept before the slot: the model's context less the slot, in tokens
        self.prompt_tokens = max(1, loaded.context_length - max_new_tokens - 2)

    @classmethod
    def load(cls, model_path: Path, lexicon: ArticleLexicon, device: str = "auto") -> EngineRegenerator:
        return cls(load_model(model_path, device), lexicon)

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        """Raises RegenerationError where the engine refuses the slot or fails decoding it."""
        prompt = slot_prompt(before, after, self.tokenizer, self.prompt_tokens)
        if not prompt:
            return None
        return self._decode(prompt, narrowing_for(written, self.lexicon))

    @functools.lru_cache(maxsize=4096)  # noqa: B019  one regenerator per worker, alive as long as it
    def _decode(self, prompt: str, narrowing: Narrowing) -> str | None:
        """The first citation greedy decoding closes after `prompt`; cached, since drafts repeat
        their boilerplate and greedy decoding gives the same answer to the same prompt."""
        request = Request(prompt=prompt, sampling=self.sampling, narrowing=narrowing)
        try:
            handle = self.engine.submit(request)
        except RequestError as error:
            raise RegenerationError(f"expected the engine to take the slot's prompt, got: {error}") from error
        try:
            while True:
                running = self.engine.step()
                while not handle.events.empty():
                    event = handle.events.get()
                    if isinstance(event, CitationEnd) and event.citation is not None:
                        return event.text
                    if isinstance(event, Failed):
                        raise RegenerationError(f"expected the engine to decode the slot, got: {event.error}")
                    if isinstance(event, Finished):
                        return None
                if not running and handle.events.empty():
                    return None
        finally:
            handle.cancel()
            while self.engine.has_work():  # let the engine retire the cancelled sequence
                self.engine.step()
