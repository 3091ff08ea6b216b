"""Re-generation of unresolvable citations (`citegen recite --regenerate --backend vllm`) through
vLLM's offline engine: the same slots, narrowing and greedy decoding as
`citegen.recite.regenerate.EngineRegenerator`, the slots of a batch decoded together.

The suggestion is the first citation the answer language closed in the continuation, found with the
database's parser; vLLM's workers build the same language from the lexicon file. Prompts are bounded
in vLLM's tokens (`slot_prompt`): vLLM refuses a whole batch for one prompt past the context.
"""

from __future__ import annotations

import atexit
import json
import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path

from vllm import SamplingParams
from vllm.exceptions import VLLMClientError

from citegen.integrations.options import ArticleLexicon, CitationOptions
from citegen.integrations.vllm_batch import VllmBatch, build_llm
from citegen.recite.errors import RegenerationError
from citegen.recite.regenerate import SLOT_TOKENS, narrowing_for, slot_prompt
from grammars import CitationFinder, CitationParser, ParsedCitation

logger = logging.getLogger(__name__)

Slot = tuple[str, ParsedCitation, str]  # (prose before, the citation as written, prose after)


class VllmRegenerator:
    """`citegen.recite.Regenerator` over one vLLM engine; `suggest_many` decodes slots as one batch."""

    def __init__(
        self, batch: VllmBatch, lexicon: ArticleLexicon, lexicon_file: str, prompt_tokens: int
    ) -> None:
        self.batch = batch
        self.tokenizer = batch.llm.get_tokenizer()
        self.lexicon = lexicon
        self.lexicon_file = lexicon_file
        self.finder = CitationFinder(CitationParser.for_lexicon(dict(lexicon)))
        self.sampling = SamplingParams(max_tokens=SLOT_TOKENS, temperature=0.0, seed=0)
        self.prompt_tokens = prompt_tokens  # the prose kept before a slot: the context less the slot

    @classmethod
    def load(cls, model_path: Path, lexicon: ArticleLexicon, **engine_args: object) -> VllmRegenerator:
        with tempfile.NamedTemporaryFile(
            "w", suffix=".json", prefix="citegen-lexicon-", delete=False, encoding="utf-8"
        ) as file:
            json.dump(
                {act: None if labels is None else sorted(labels) for act, labels in lexicon.items()},
                file,
                ensure_ascii=False,
            )
        # the workers read the file while the command runs; left behind, one copy of the database's
        # lexicon piled up in the temporary folder per run
        atexit.register(Path(file.name).unlink, missing_ok=True)
        llm = build_llm(model_path, **{"dtype": "float32", **engine_args})
        # the recite command exits through typer with the engine still up; without an explicit
        # shutdown its engine-core process outlived the command (registered last: runs first)
        atexit.register(llm.llm_engine.engine_core.shutdown)
        context = llm.llm_engine.model_config.max_model_len
        return cls(VllmBatch(llm), lexicon, file.name, max(1, context - SLOT_TOKENS - 2))

    def suggest(self, before: str, written: ParsedCitation, after: str) -> str | None:
        found = self.suggest_many([(before, written, after)])[0]
        if isinstance(found, RegenerationError):
            raise found
        return found

    def suggest_many(self, slots: Sequence[Slot]) -> list[str | RegenerationError | None]:
        """Each slot's suggestion, or the RegenerationError saying why vLLM refused it: one refused
        request makes vLLM refuse its whole batch, so the slots are then decoded one at a time."""
        prompts = [slot_prompt(before, after, self.tokenizer, self.prompt_tokens) for before, _, after in slots]
        wanted = [i for i, prompt in enumerate(prompts) if prompt]
        found: list[str | RegenerationError | None] = [None] * len(slots)
        if not wanted:
            return found
        options = [self._options(slots[i][1]) for i in wanted]
        try:
            completions = self.batch.generate(
                [prompts[i] for i in wanted], [self.sampling] * len(wanted), options
            )
        except (VLLMClientError, ValueError) as error:  # vLLM's refusal of a request
            if len(wanted) > 1:
                return [self.suggest_many([slot])[0] for slot in slots]
            found[wanted[0]] = RegenerationError(f"expected vLLM to take the slot's prompt, got: {error}")
            return found
        for i, completion in zip(wanted, completions, strict=True):
            found[i] = self._first_citation(completion[0].text)
        return found

    def _options(self, written: ParsedCitation) -> CitationOptions:
        return CitationOptions("answer", narrowing_for(written, self.lexicon), self.lexicon_file)

    def _first_citation(self, text: str) -> str | None:
        citations = self.finder.find(text, False)
        if not citations:
            return None
        start, end = citations[0].span
        return text[start:end]
