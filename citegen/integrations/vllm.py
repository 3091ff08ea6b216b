"""The citation constraint as a vLLM v1 logits processor.

    LLM(model=..., logits_processors=[CitationLogitsProcessor])
    vllm serve MODEL --logits-processors citegen.integrations.vllm:CitationLogitsProcessor

Each request opts in with `citegen_*` keys in `SamplingParams.extra_args` (`vllm_xargs` over REST;
see `citegen.integrations.options`). Engine-wide settings come in vLLM's `additional_config` under
`"citegen"` (`engine_config` there): with `index_cache_dir`, each worker loads the compiled index of
a request's language from that directory, or builds it whole and stores it there, as citegen's own
engine does with the same setting; with `served` (the options of the requests the service sends),
each worker readies what that lexicon's narrowings share when it starts, as the front end does, so a
first narrowed request pays no more inside its decode step than a later one. One processor lives in
each vLLM worker and holds, per batch row, a `ConstraintCursor` (citegen's own, over the token index
of the request's grammar) and the live list of the row's output ids that vLLM hands over when the
request joins. Before each step the cursor catches up on the ids appended since (going back over any
vLLM took back: `citegen.integrations.output_ids`); rows whose state
needs no mask (free text) cost a dictionary lookup. The masked rows' bitmasks go through the
engine's kernel (`citegen.kernels.apply_token_bitmask_inplace`: Triton on CUDA, a C kernel built at
first use on CPU).

A citation in progress always closes within the request's `max_tokens`: each row is filled by the
cursor's `fill_bitmask` with the tokens left, the one operation citegen's engine and its
transformers processor use too (near the end the row is forced along the shortest completion, and
tokens that would open or continue a citation too long for the tokens left are masked).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from transformers import AutoTokenizer
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

from citegen.constraint import CompiledConstraint, ConstraintCursor, allow_only
from citegen.errors import CitegenError, EmptyMaskError
from citegen.integrations.options import CitationOptions, WorkerConfig
from citegen.integrations.output_ids import OutputReader
from citegen.kernels import apply_token_bitmask_inplace
from grammars import GrammarError, Lexicon, TokenIndex, compile_index, vocabulary_of

if TYPE_CHECKING:
    from vllm import SamplingParams
    from vllm.config import VllmConfig

logger = logging.getLogger(__name__)

CONSTRAINTS_KEPT = 16  # compiled languages a worker keeps, as citegen's own ConstraintLibrary


def _log_where_vllm_logs() -> None:
    """In a worker process nobody configures logging but vLLM, for its own `vllm` logger: citegen's
    messages there (an index compiled, narrowings readied) go to vLLM's handlers, with its process
    prefix, instead of being dropped below WARNING. A process that configured logging keeps its own."""
    ours, theirs = logging.getLogger("citegen"), logging.getLogger("vllm")
    if logging.getLogger().handlers or ours.handlers or not theirs.handlers:
        return
    for handler in theirs.handlers:
        ours.addHandler(handler)
    ours.setLevel(theirs.getEffectiveLevel())

@dataclass(slots=True)
class _Row:
    """One request's place in the batch: its cursor reading vLLM's live output ids."""

    cursor: ConstraintCursor | None  # None: the request's language could not be built
    output_ids: list[int]
    max_tokens: int
    eos_ids: tuple[int, ...]
    reader: OutputReader | None = field(init=False)

    def __post_init__(self) -> None:
        self.reader = None if self.cursor is None else OutputReader(self.cursor, self.output_ids)

    @property
    def broken(self) -> bool:
        """No language, or the cursor met a token it rejects: the row is ended with EOS."""
        return self.cursor is None

    @property
    def tokens_left(self) -> int:
        return self.max_tokens - len(self.output_ids)

    def catch_up(self) -> None:
        """Advance the cursor over the ids vLLM appended since the last step (or changed: OutputReader)."""
        if self.cursor is None or self.reader is None:  # broken
            return
        try:
            self.reader.catch_up()
        except CitegenError as error:
            logger.error("ending a request whose token the citation automaton rejects: %s", error)
            self.cursor = None


class CitationLogitsProcessor(LogitsProcessor):  # type: ignore[misc]  # vLLM is untyped where make lint runs
    """Masks, per request, the tokens that would take its text out of its citation language."""

    @classmethod
    def validate_params(cls, sampling_params: SamplingParams) -> None:
        CitationOptions.from_extra_args(sampling_params.extra_args)

    def __init__(self, vllm_config: VllmConfig, device: torch.device, is_pin_memory: bool) -> None:
        _log_where_vllm_logs()
        model_config = vllm_config.model_config
        self.max_model_len = model_config.max_model_len
        self.vocab_size = model_config.get_vocab_size()
        self.tokenizer = AutoTokenizer.from_pretrained(
            model_config.tokenizer,
            revision=model_config.tokenizer_revision,
            trust_remote_code=model_config.trust_remote_code,
            local_files_only=True,
        )
        self._vocabulary = vocabulary = vocabulary_of(self.tokenizer, self.vocab_size)
        self.eos_ids = vocabulary.eos_ids
        # ids that are no text (BOS, pad, chat markers, padded logits): never allowed in an answer,
        # even where its language is free; the index's masks leave them out, free rows ban them here
        texts = vocabulary.tokens
        self._control_ids = torch.tensor(
            [
                i
                for i in range(self.vocab_size)
                if (i >= len(texts) or not texts[i]) and i not in self.eos_ids
            ],
            dtype=torch.long,
            device=device,
        )
        self._constraints: OrderedDict[tuple[CitationOptions, Lexicon], CompiledConstraint] = OrderedDict()
        config = WorkerConfig.of(vllm_config.additional_config)
        self._index_cache_dir = config.index_cache_dir
        if config.served is not None and config.served.grammar == "answer":
            # what the narrowings of the served lexicon share (its anchors' automaton, the masks of free
            # text), made now rather than inside the first narrowed request's step (0.1–0.2 s over the
            # statute book)
            config.served.narrowings().prepare(vocabulary)
            logger.info("prepared the narrowings of %s", config.served.lexicon or "the built-in lexicon")
        self._rows: dict[int, _Row] = {}
        self._pin = is_pin_memory
        self._bitmask = torch.empty((0, (self.vocab_size + 31) // 32), dtype=torch.int32)

    def is_argmax_invariant(self) -> bool:
        return False  # masking changes which token is the argmax

    # ---- batch bookkeeping --------------------------------------------------------------------

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if batch_update is not None:
            for index in batch_update.removed:
                self._rows.pop(index, None)
            for index, params, prompt_ids, output_ids in batch_update.added:
                self._rows.pop(index, None)
                row = self._new_row(params, prompt_ids, output_ids)
                if row is not None:
                    self._rows[index] = row
            for source, target, direction in batch_update.moved:
                moving = self._rows.pop(source, None)
                if direction == MoveDirectionality.SWAP:
                    staying = self._rows.pop(target, None)
                    if staying is not None:
                        self._rows[source] = staying
                else:
                    self._rows.pop(target, None)
                if moving is not None:
                    self._rows[target] = moving
        for row in self._rows.values():
            row.catch_up()

    def _new_row(
        self, params: SamplingParams, prompt_ids: Sequence[int] | None, output_ids: list[int]
    ) -> _Row | None:
        prompt_length = len(prompt_ids) if prompt_ids is not None else 0
        room = self.max_model_len - prompt_length
        max_tokens = room if params.max_tokens is None else min(params.max_tokens, room)
        eos = tuple(sorted(self.eos_ids | set(params.all_stop_token_ids or ())))
        try:
            options = CitationOptions.from_extra_args(params.extra_args)
            if options is None:
                return None
            cursor = ConstraintCursor(self._compiled(options))
        except (CitegenError, GrammarError) as error:
            # validate_params passed, yet the worker cannot build the language (a lexicon file
            # changed or missing on this node): this request ends, the engine serves on
            logger.error("ending a request whose citation language cannot be built: %s", error)
            cursor = None
        return _Row(cursor, output_ids, max_tokens, eos)

    def _compiled(self, options: CitationOptions) -> CompiledConstraint:
        """The options' constraint over the lexicon file as it is now: a file rewritten since (a new
        export) is a new language, as the front end that accepted the request read it. Least recently
        used dropped past `CONSTRAINTS_KEPT` (a row keeps its own), or every narrowing ever asked for
        would stay in the worker."""
        key = (options, options.article_lexicon())  # one Lexicon object per version of the file
        compiled = self._constraints.get(key)
        if compiled is None:
            compiled = self._constraints[key] = CompiledConstraint(self._index(options), self.vocab_size)
            while len(self._constraints) > CONSTRAINTS_KEPT:
                self._constraints.popitem(last=False)
            logger.info("compiled the citation index for %s (%d kept)", options, len(self._constraints))
        self._constraints.move_to_end(key)
        return compiled

    def _index(self, options: CitationOptions) -> TokenIndex:
        """The answer language as citegen's engine has it (`Narrowings.index`): whole, loaded from the
        cache directory (where the front end stored it); a narrowing compiled in milliseconds over what
        the lexicon's narrowings share, inside this step, instead of built whole. Other grammars built whole
        and stored with a cache directory."""
        if options.grammar == "answer":
            return options.narrowings().index(options.narrowing, self._vocabulary, self._index_cache_dir)
        return compile_index(options.grammar_object(), self._vocabulary, cache_dir=self._index_cache_dir)

    # ---- masking ------------------------------------------------------------------------------

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        if not self._rows:
            return logits
        masked: list[int] = []
        free: list[int] = []
        self._reserve_bitmask(logits.shape[0])
        for index, row in self._rows.items():
            row.catch_up()
            if index < logits.shape[0]:
                (masked if self._fill_row(index, row) else free).append(index)
        if masked:
            rows = self._bitmask[: logits.shape[0]]
            apply_token_bitmask_inplace(logits, rows, masked, self.vocab_size)
        if free and self._control_ids.numel():
            free_rows = torch.tensor(free, dtype=torch.long, device=logits.device)
            logits[free_rows.unsqueeze(1), self._control_ids] = float("-inf")
        return logits

    def _fill_row(self, index: int, row: _Row) -> bool:
        """Write the row's bitmask; False for a row in free text with nothing banned (nothing to do)."""
        bitmask = self._bitmask[index].numpy()
        if row.cursor is None:  # broken
            allow_only(bitmask, row.eos_ids)
            return True
        try:
            return row.cursor.fill_bitmask(bitmask, row.tokens_left)
        except EmptyMaskError as error:
            logger.error("ending a request whose citation automaton allows no token: %s", error)
            row.cursor = None
            allow_only(bitmask, row.eos_ids)
            return True

    def _reserve_bitmask(self, batch_size: int) -> None:
        """Grow the reused bitmask buffer (pinned where vLLM pins) before any row is written."""
        if self._bitmask.shape[0] < batch_size:
            rows = max(batch_size, 2 * self._bitmask.shape[0])
            self._bitmask = torch.empty(
                (rows, self._bitmask.shape[1]), dtype=torch.int32, pin_memory=self._pin
            )


def processor_path() -> str:
    """The `module:Class` string for `--logits-processors` and `LLM(logits_processors=[...])`."""
    return f"{__name__}:{CitationLogitsProcessor.__name__}"


__all__ = ["CitationLogitsProcessor", "processor_path"]
