"""The batched decode loop: continuous batching over one left-padded KV cache.

Requests are submitted from any thread (`Engine.submit`) and joined to the running batch between
steps; each `step()` runs one forward pass for every running sequence (plus the prefill of those
joining), masks the rows whose constraint state needs it, samples one token per row from the
request's own generator, and routes each sequence's events to its sink. Finished or cancelled
sequences leave the batch before the next step.

The batch cache keeps every row's keys and values left-padded to a common length; the attention
mask marks the padding and explicit position ids keep each row's real positions, so a row's
numbers do not depend on which others share the batch (up to floating-point reassociation).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch
from transformers import DynamicCache, PreTrainedTokenizerBase
from transformers.cache_utils import DynamicLayer

from citegen.constraint import Constraint, ConstraintCursor, ConstraintLibrary, Narrowing
from citegen.errors import (
    CitegenError,
    EmptyMaskError,
    ModelLoadError,
    PromptTooLongError,
    RequestError,
    SamplingError,
)
from citegen.events import Event, Failed, Finished, FinishReason, TextEventMachine
from citegen.kernels import apply_token_bitmask_inplace
from citegen.models import LoadedModel
from citegen.sampling import SamplingParams, apply_repetition_penalty_inplace, sample_row

logger = logging.getLogger(__name__)

_request_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Request:
    """A prompt (plain text) or chat messages ((role, content) pairs, rendered with the model's
    chat template), how to sample, and whether and how to constrain citations."""

    prompt: str = ""
    messages: tuple[tuple[str, str], ...] = ()
    sampling: SamplingParams = field(default_factory=SamplingParams)
    constrain: bool = True
    narrowing: Narrowing = field(default_factory=Narrowing)
    request_id: str = ""


def encode_prompt(tokenizer: PreTrainedTokenizerBase, request: Request) -> list[int]:
    """The request's prompt as token ids, as every backend feeds it to its model: messages through
    the tokenizer's chat template, a plain prompt as the tokenizer encodes it. Raises RequestError
    for an empty message or prompt, or messages for a tokenizer without a chat template."""
    if request.messages:
        if not all(content.strip() for _, content in request.messages):
            raise RequestError("expected non-empty message contents, got an empty one")
        if tokenizer.chat_template is None:
            raise RequestError("expected a tokenizer with a chat template for messages, got none")
        chat = [{"role": role, "content": content} for role, content in request.messages]
        text = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
        return list(tokenizer(text, add_special_tokens=False).input_ids)
    if not request.prompt.strip():
        raise RequestError(f"expected a non-empty prompt, got {request.prompt!r}")
    return list(tokenizer(request.prompt).input_ids)


def prompt_room(context_length: int, prompt_ids: list[int]) -> int:
    """Tokens a model with `context_length` can still generate after the prompt; raises
    PromptTooLongError when it leaves none."""
    room = context_length - len(prompt_ids)
    if room < 1:
        raise PromptTooLongError(
            f"expected a prompt of at most {context_length - 1} tokens "
            f"(the model's context less one), got {len(prompt_ids)}"
        )
    return room


class RequestHandle:
    """The submitter's side of one request: its events (unless a sink was given) and cancel()."""

    def __init__(self, request_id: str) -> None:
        self.request_id = request_id
        self.events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()


class _Sequence:
    def __init__(
        self,
        request: Request,
        handle: RequestHandle,
        prompt_ids: list[int],
        max_new_tokens: int,
        cursor: ConstraintCursor | None,
        machine: TextEventMachine,
        generator: torch.Generator,
        sink: Callable[[Event], None],
    ) -> None:
        self.request = request
        self.handle = handle
        self.prompt_ids = prompt_ids
        self.max_new_tokens = max_new_tokens
        self.cursor = cursor
        self.machine = machine
        self.generator = generator
        self.sink = sink
        self.generated: list[int] = []
        self.seen: set[int] = set(prompt_ids)
        self.finished = False

    @property
    def tokens_left(self) -> int:
        return self.max_new_tokens - len(self.generated)

    def emit(self, events: list[Event]) -> None:
        for event in events:
            self.sink(event)

    def finish(self, reason: FinishReason) -> None:
        events, reason = self.machine.finish(reason, complete=self.cursor is None or self.cursor.accepting)
        self.emit(events)
        self.sink(Finished(reason, len(self.prompt_ids), len(self.generated), self.machine.text))
        self.finished = True

    def fail(self, error: Exception) -> None:
        self.sink(Failed(error))
        self.finished = True


class Engine:
    """One model, one batch, many requests."""

    def __init__(
        self, loaded: LoadedModel, constraints: ConstraintLibrary | None = None, *, max_batch: int = 32
    ) -> None:
        if max_batch < 1:
            raise RequestError(f"expected max_batch >= 1, got {max_batch}")
        self.loaded = loaded
        self.constraints = constraints
        self.max_batch = max_batch
        self._pending: queue.SimpleQueue[_Sequence] = queue.SimpleQueue()
        self._wakeup = threading.Event()
        self._active: list[_Sequence] = []
        self._cache: DynamicCache | None = None  # layers of (batch, heads, time, head_dim)
        self._attention: torch.Tensor | None = None  # (batch, time), 0 = left padding
        self._bitmask_host: torch.Tensor | None = None  # rows the cursors fill (pinned for CUDA)
        self._bitmask_device: torch.Tensor | None = None  # CUDA only: the rows the kernel reads
        # control tokens (BOS, pad, chat markers) never belong in an answer; EOS ends it
        control = [
            i for i, piece in enumerate(loaded.vocabulary.tokens) if piece is None and i not in loaded.eos_ids
        ]
        self._control_ids = torch.tensor(control, dtype=torch.long, device=loaded.device)

    # ---- submitting -----------------------------------------------------------------------

    def submit(
        self,
        request: Request,
        sink: Callable[[Event], None] | None = None,
        constraint: Constraint | None = None,
    ) -> RequestHandle:
        """Validate and queue a request; its events go to `sink` (called on the engine's thread)
        or, without one, to `handle.events`. Bad requests raise `RequestError` here. A constrained
        request uses `constraint` when given (its narrowing's, fetched beforehand off the caller's
        event loop), else the library's for its narrowing, compiled here on a miss."""
        prompt_ids = encode_prompt(self.loaded.tokenizer, request)
        room = prompt_room(self.loaded.context_length, prompt_ids)
        cursor, machine = (
            None,
            TextEventMachine(anchor=None, parse=lambda _: None, stop=request.sampling.stop),
        )
        if request.constrain:
            if self.constraints is None:
                raise RequestError("expected an engine built with citation constraints, got one without")
            constraint = constraint or self.constraints.get(request.narrowing)
            cursor = constraint.cursor()
            machine = TextEventMachine(
                anchor=constraint.anchor, parse=constraint.parse, stop=request.sampling.stop
            )
        handle = RequestHandle(request.request_id or f"req-{next(_request_ids)}")
        sequence = _Sequence(
            request,
            handle,
            prompt_ids,
            min(request.sampling.max_new_tokens, room),
            cursor,
            machine,
            request.sampling.make_generator(self.loaded.device),
            sink or handle.events.put,
        )
        self._pending.put(sequence)
        self._wakeup.set()
        return handle

    def check(self, request: Request) -> None:
        """Raise the `RequestError` that `submit` would for the request's prompt, queueing nothing
        (what a server checks before it answers 200)."""
        prompt_room(self.loaded.context_length, encode_prompt(self.loaded.tokenizer, request))

    # ---- running --------------------------------------------------------------------------

    @property
    def active(self) -> int:
        return len(self._active)

    def has_work(self) -> bool:
        return bool(self._active) or not self._pending.empty()

    def stream(self, request: Request) -> Iterator[Event]:
        """Submit and drive the loop on this thread, yielding the request's events as they come."""
        handle = self.submit(request)
        while True:
            self.step()
            while not handle.events.empty():
                event = handle.events.get()
                yield event
                if isinstance(event, (Finished, Failed)):
                    return

    def run_forever(self, stop: threading.Event) -> None:
        """The serving loop: step while there is work, sleep until a submit wakes it."""
        while not stop.is_set():
            if not self.has_work():
                self._wakeup.wait(timeout=0.5)
                self._wakeup.clear()
                continue
            try:
                self.step()
            except Exception as error:  # the loop's boundary: a bug must fail its requests, not hang them
                logger.exception("decode step failed")
                self._fail_all(error)

    def wake(self) -> None:
        self._wakeup.set()

    @torch.inference_mode()
    def step(self) -> int:
        """One decode step for the whole batch; returns how many sequences are still running."""
        self._retire(lambda sequence: sequence.handle.cancelled, "cancelled")
        try:
            parts = [self._decode_running()] if self._active else []
            joined = self._admit()
            if joined is not None:
                parts.append(joined)
            if not parts:
                return 0
            logits = torch.cat(parts) if len(parts) > 1 else parts[0]
        except (RuntimeError, CitegenError) as error:  # a failed forward pass fails the whole batch
            logger.exception("forward pass failed for %d sequences", len(self._active))
            self._fail_all(error)
            return 0
        self._sample_and_advance(logits)
        self._retire(lambda sequence: sequence.finished, None)
        return len(self._active)

    def _fail_all(self, error: Exception) -> None:
        """Fail every running sequence and start over with an empty batch."""
        for sequence in self._active:
            if not sequence.finished:
                sequence.fail(error)
        self._active, self._cache, self._attention = [], None, None

    def _decode_running(self) -> torch.Tensor:
        device = self.loaded.device
        inputs = torch.tensor([[sequence.generated[-1]] for sequence in self._active], device=device)
        positions = torch.tensor(
            [[len(sequence.prompt_ids) + len(sequence.generated) - 1] for sequence in self._active],
            device=device,
        )
        assert self._attention is not None  # a running batch has its attention mask
        attention = torch.cat([self._attention, torch.ones_like(self._attention[:, :1])], dim=1)
        output = self.loaded.model(
            input_ids=inputs,
            attention_mask=attention,
            position_ids=positions,
            use_cache=True,
            **{self.loaded.cache_keyword: self._cache},
        )
        self._attention = attention
        logits: torch.Tensor = output.logits[:, -1, :].float()
        return logits

    def _admit(self) -> torch.Tensor | None:
        """Prefill queued requests (while there is room) and join them to the batch cache."""
        rows = []
        while len(self._active) < self.max_batch and not self._pending.empty():
            sequence = self._pending.get()
            if sequence.handle.cancelled:
                sequence.finish("cancelled")
                continue
            rows.append(self._prefill(sequence))
            self._active.append(sequence)
        return torch.cat(rows) if rows else None

    def _prefill(self, sequence: _Sequence) -> torch.Tensor:
        device = self.loaded.device
        inputs = torch.tensor([sequence.prompt_ids], device=device)
        output = self.loaded.model(
            input_ids=inputs,
            attention_mask=torch.ones_like(inputs),
            position_ids=torch.arange(inputs.shape[1], device=device).unsqueeze(0),
            use_cache=True,
            logits_to_keep=1,
            **{self.loaded.cache_keyword: DynamicCache()},
        )
        cache = output[self.loaded.cache_keyword]
        layers = cache.layers
        if any(type(layer) is not DynamicLayer for layer in layers):
            raise ModelLoadError(
                f"expected a model whose cache layers are full-attention DynamicLayers, got "
                f"{sorted({type(layer).__name__ for layer in layers})}"
            )
        self._join(cache, torch.ones_like(inputs))
        logits: torch.Tensor = output.logits[:, -1, :].float()
        return logits

    def _join(self, cache: DynamicCache, attention: torch.Tensor) -> None:
        if self._cache is None or self._attention is None:
            self._cache, self._attention = cache, attention
            return
        length = max(self._attention.shape[1], attention.shape[1])
        # Every layer is a DynamicLayer holding its keys and values (_prefill checks): mypy sees transformers'
        # union of layer kinds, each of whose tensors may still be None.
        for mine, theirs in zip(self._cache.layers, cache.layers, strict=True):
            mine.keys = torch.cat([_left_pad(mine.keys, length, 2), _left_pad(theirs.keys, length, 2)])  # type: ignore[union-attr, arg-type]
            mine.values = torch.cat([_left_pad(mine.values, length, 2), _left_pad(theirs.values, length, 2)])  # type: ignore[union-attr, arg-type]
        self._attention = torch.cat([_left_pad(self._attention, length, 1), _left_pad(attention, length, 1)])

    def _retire(self, done: Callable[[_Sequence], bool], reason: FinishReason | None) -> None:
        keep = [row for row, sequence in enumerate(self._active) if not done(sequence)]
        if len(keep) == len(self._active):
            return
        for sequence in self._active:
            if done(sequence) and reason is not None:
                sequence.finish(reason)
        self._active = [self._active[row] for row in keep]
        if not keep or self._cache is None or self._attention is None:
            self._cache, self._attention = None, None
            return
        rows = torch.tensor(keep, device=self.loaded.device)
        attention = self._attention.index_select(0, rows)
        # drop the columns that are padding in every remaining row
        first = int((attention.sum(dim=0) > 0).nonzero()[0])
        self._attention = attention[:, first:]
        for layer in self._cache.layers:  # DynamicLayers holding tensors, as in _join
            layer.keys = layer.keys.index_select(0, rows)[:, :, first:]  # type: ignore[union-attr]
            layer.values = layer.values.index_select(0, rows)[:, :, first:]  # type: ignore[union-attr]

    # ---- masking and sampling -------------------------------------------------------------

    def _sample_and_advance(self, logits: torch.Tensor) -> None:
        """Mask and sample every row. A row whose constraint allows nothing or whose scores cannot
        be sampled fails its own request; the others go on."""
        vocab = self.loaded.vocab_size
        if logits.shape[1] > vocab:
            logits[:, vocab:] = float("-inf")  # padded embedding rows are never tokens
        if self._control_ids.numel():
            logits.index_fill_(1, self._control_ids, float("-inf"))
        bitmask = self._bitmask_rows(logits)
        masked_rows = []
        for row, sequence in enumerate(self._active):
            params = sequence.request.sampling
            if params.repetition_penalty != 1.0:
                seen = torch.tensor(sorted(sequence.seen), device=logits.device)
                apply_repetition_penalty_inplace(logits[row], seen, params.repetition_penalty)
            cursor = sequence.cursor
            if cursor is None:
                continue
            try:
                if cursor.fill_bitmask(bitmask[row].numpy(), sequence.tokens_left):
                    masked_rows.append(row)
            except EmptyMaskError as error:
                self._fail_one(sequence, error)
        if masked_rows:
            self._apply_bitmask(logits, bitmask, masked_rows)
        for row, sequence in enumerate(self._active):
            if sequence.finished:
                continue
            try:
                token = sample_row(logits[row], sequence.request.sampling, sequence.generator)
                self._advance(sequence, token)
            except (EmptyMaskError, SamplingError) as error:
                self._fail_one(sequence, error)

    def _fail_one(self, sequence: _Sequence, error: CitegenError) -> None:
        logger.error("request %s: %s", sequence.handle.request_id, error)
        sequence.fail(error)

    def _bitmask_rows(self, logits: torch.Tensor) -> torch.Tensor:
        """The host rows the cursors fill, allocated once (pinned when the logits are on CUDA)."""
        if self._bitmask_host is None:
            words = (self.loaded.vocab_size + 31) // 32
            self._bitmask_host = torch.zeros(
                (self.max_batch, words), dtype=torch.int32, pin_memory=logits.is_cuda
            )
        return self._bitmask_host

    def _apply_bitmask(self, logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int]) -> None:
        """The filled rows through the kernel dispatcher: Triton on CUDA logits, C on CPU (cpu_bitmask.c)."""
        batch = logits.shape[0]
        if logits.is_cuda:
            if self._bitmask_device is None:
                self._bitmask_device = torch.empty_like(bitmask, device=logits.device)
            self._bitmask_device[:batch].copy_(bitmask[:batch], non_blocking=True)
            bitmask = self._bitmask_device
        apply_token_bitmask_inplace(logits, bitmask[:batch], rows, self.loaded.vocab_size)

    def _advance(self, sequence: _Sequence, token: int) -> None:
        if token in self.loaded.eos_ids:
            sequence.finish("stop")
            return
        sequence.generated.append(token)
        sequence.seen.add(token)
        transition = sequence.cursor.advance(token) if sequence.cursor is not None else None
        sequence.emit(sequence.machine.feed(self.loaded.token_bytes[token], transition))
        if sequence.machine.stopped:
            sequence.finish("stop")
        elif sequence.tokens_left <= 0:
            sequence.finish("length")


def _left_pad(tensor: torch.Tensor, length: int, dim: int) -> torch.Tensor:
    missing = length - tensor.shape[dim]
    if missing == 0:
        return tensor
    shape = list(tensor.shape)
    shape[dim] = missing
    return torch.cat([tensor.new_zeros(shape), tensor], dim=dim)
