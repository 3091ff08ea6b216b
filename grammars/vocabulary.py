"""Token id → bytes, for the tokenizers the engine meets, and the byte trie the index walks.

- byte-level BPE (GPT-2's byte↔unicode table: `Ġ` is a space),
- SentencePiece (`▁` is a space, `<0xXX>` byte-fallback pieces are single bytes),
- tiktoken encodings (their ranks are already bytes).
Control tokens (special added tokens such as BOS or pad) have no bytes and are never allowed; EOS ids
are allowed exactly where the language may end. Added tokens that are not special (`<think>`,
tool-call markup) are text: their content bytes.
"""

from __future__ import annotations

import array
import bisect
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from grammars.errors import TokenizerError

_BYTE_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def gpt2_unicode_to_byte() -> dict[str, int]:
    """Inverse of GPT-2's `bytes_to_unicode`: printable bytes map to themselves, the rest to 256+."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    printable += list(range(ord("®"), ord("ÿ") + 1))
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[chr(byte)] = byte
        else:
            table[chr(256 + extra)] = byte
            extra += 1
    return table


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """`tokens[i]` is token i's bytes, or None for a control token; `size` may exceed len(tokens)
    when the model pads its embedding (ids past the tokenizer are never allowed)."""

    tokens: tuple[bytes | None, ...]
    eos_ids: frozenset[int]
    size: int = 0

    def __post_init__(self) -> None:
        if not self.size:
            object.__setattr__(self, "size", len(self.tokens))
        if self.size < len(self.tokens):
            raise TokenizerError(
                f"expected a model vocabulary of at least the tokenizer's {len(self.tokens)} ids, got {self.size}"
            )
        for eos in self.eos_ids:
            if not 0 <= eos < self.size:
                raise TokenizerError(f"expected EOS ids inside the vocabulary (0..{self.size - 1}), got {eos}")
        if not self.eos_ids:
            raise TokenizerError("expected at least one EOS id, got none")

    @cached_property
    def fingerprint(self) -> str:
        lengths = array.array("i", (-1 if t is None else len(t) for t in self.tokens))
        digest = hashlib.sha256(f"{self.size}:{sorted(self.eos_ids)}".encode())
        digest.update(lengths.tobytes())
        digest.update(b"".join(t for t in self.tokens if t))
        return digest.hexdigest()[:32]

    @cached_property
    def trie(self) -> TokenTrie:
        return TokenTrie.build(self)

    @cached_property
    def text_bitmask(self) -> np.ndarray:
        """The bitmask of every text token and EOS (what free text allows); read-only."""
        allowed = np.zeros(((self.size + 31) // 32) * 32, dtype=bool)
        allowed[[i for i, t in enumerate(self.tokens) if t]] = True
        allowed[sorted(self.eos_ids)] = True
        row = np.packbits(allowed, bitorder="little").view(np.int32)
        row.setflags(write=False)
        return row

    def hit_prefix(self, finals: frozenset[bytes]) -> array.array[int]:
        """hits[p] = how many of the first p tokens in trie order may hold the end of one of `finals`
        (last characters, as UTF-8): a token that holds a whole one, or begins with its tail (the
        character began in the token before). Cached."""
        cache: dict[frozenset[bytes], array.array[int]] = self.__dict__.setdefault("_hit_prefixes", {})
        found = cache.get(finals)
        if found is None:
            found = cache[finals] = self._count_hits(finals)
        return found

    def _count_hits(self, finals: frozenset[bytes]) -> array.array[int]:
        trie = self.trie.arrays
        table = np.zeros(256, dtype=np.int64)
        table[[final[-1] for final in finals]] = 1
        per_byte = table[trie["blob"][:-1]]
        per_token = np.add.reduceat(per_byte, trie["offset"]) > 0 if len(trie["offset"]) else np.zeros(0, bool)
        tails = tuple({final[k:] for final in finals for k in range(1, len(final))})
        if tails:  # a token holding a final's last byte inside another character (most Hangul) is no hit
            whole = re.compile(b"|".join(map(re.escape, finals)))
            blob, offset, length = trie["blob"].tobytes(), trie["offset"], trie["length"]
            for position in np.flatnonzero(per_token).tolist():
                token = blob[offset[position] : offset[position] + length[position]]
                per_token[position] = token.startswith(tails) or whole.search(token) is not None
        return array.array("q", np.concatenate([[0], np.cumsum(per_token)]).astype(np.int64).tobytes())

    def with_size(self, size: int) -> Vocabulary:
        """The same tokens under a model's (padded) logits width; shares the byte trie, made once."""
        sized: dict[int, Vocabulary] = self.__dict__.setdefault("_sized", {})
        if size not in sized:
            sized[size] = Vocabulary(self.tokens, self.eos_ids, size)
            if "trie" in self.__dict__:
                sized[size].__dict__["trie"] = self.trie  # ids past the tokenizer never reach it
        return sized[size]

    @classmethod
    def from_tiktoken(
        cls, encoding: TiktokenEncoding, eos_ids: list[int], text_specials: tuple[str, ...] = ()
    ) -> Vocabulary:
        """A tiktoken `Encoding`; special tokens are control tokens unless named in `text_specials`."""
        specials = {i: name for name, i in encoding._special_tokens.items()}
        tokens: list[bytes | None] = []
        for i in range(encoding.n_vocab):
            if i in specials:
                tokens.append(specials[i].encode() if specials[i] in text_specials else None)
            else:
                try:
                    tokens.append(encoding.decode_single_token_bytes(i))
                except KeyError:
                    tokens.append(None)
        return cls(tuple(tokens), frozenset(eos_ids))

    @classmethod
    def from_tokenizer(cls, tokenizer: object, *, size: int | None = None) -> Vocabulary:
        """A Hugging Face `PreTrainedTokenizerBase` or a `tokenizers.Tokenizer` (duck-typed: grammars
        never imports transformers or tokenizers)."""
        backend: Any = getattr(tokenizer, "backend_tokenizer", tokenizer)  # a tokenizers.Tokenizer
        if not hasattr(backend, "to_str"):
            raise TokenizerError(
                f"expected a fast Hugging Face tokenizer or tokenizers.Tokenizer, got {type(tokenizer).__name__}"
            )
        spec = json.loads(backend.to_str())
        vocab: dict[str, int] = backend.get_vocab(with_added_tokens=True)
        added = {a["id"]: a for a in spec.get("added_tokens", [])}
        decode = _piece_decoder(spec)
        count = max(vocab.values()) + 1
        tokens: list[bytes | None] = [None] * count
        for piece, i in vocab.items():
            if i in added:
                tokens[i] = None if added[i]["special"] else added[i]["content"].encode()
            else:
                tokens[i] = decode(piece, i)
        eos_ids = _eos_ids(tokenizer, vocab)
        return cls(tuple(tokens), frozenset(eos_ids), size or count)


def _piece_decoder(spec: dict[str, Any]) -> Callable[[str, int], bytes]:
    text = json.dumps(spec.get("decoder")) + json.dumps(spec.get("pre_tokenizer"))
    model = spec.get("model", {})
    if '"ByteLevel"' in text:
        table = gpt2_unicode_to_byte()

        def byte_level(piece: str, i: int) -> bytes:
            try:
                return bytes(table[c] for c in piece)
            except KeyError as error:
                raise TokenizerError(
                    f"expected byte-level BPE pieces, got token {i} {piece!r} with {error.args[0]!r}"
                ) from None

        return byte_level
    if model.get("byte_fallback") or '"Metaspace"' in text or '"ByteFallback"' in text:

        def sentencepiece(piece: str, i: int) -> bytes:
            found = _BYTE_FALLBACK.fullmatch(piece)
            return bytes((int(found.group(1), 16),)) if found else piece.replace("▁", " ").encode()

        return sentencepiece
    raise TokenizerError(
        f"expected a byte-level BPE or SentencePiece tokenizer, got model {model.get('type')!r} without a byte mapping"
    )


def _eos_ids(tokenizer: object, vocab: dict[str, int]) -> list[int]:
    eos = getattr(tokenizer, "eos_token_id", None)
    if isinstance(eos, int):
        return [eos]
    for name in ("</s>", "<|endoftext|>", "<|im_end|>", "<｜end▁of▁sentence｜>", "<eos>"):
        if name in vocab:
            return [vocab[name]]
    raise TokenizerError("expected an EOS token (eos_token_id or a known end-of-text piece), got none")


class TiktokenEncoding(Protocol):
    """What `Vocabulary.from_tiktoken` reads of a `tiktoken.Encoding` (grammars never imports tiktoken)."""

    _special_tokens: dict[str, int]

    @property
    def n_vocab(self) -> int: ...

    def decode_single_token_bytes(self, token: int, /) -> bytes: ...


def _scalar(values: np.ndarray) -> array.array[int]:
    return array.array("i", values.astype(np.int32).tobytes())


class TokenTrie:
    """The text tokens' bytes as a trie in preorder: children of node n are edges
    `edge_start[n] .. edge_start[n+1]` (byte, child); tokens ending at n are
    `order[token_start[n] .. token_start[n+1]]`; the subtree of n holds `order[token_start[n] .. token_end[n]]`.
    `blob[offset[p] : offset[p] + length[p]]` are the bytes of the p-th token in trie order, for walks
    vectorised over many tokens. The scalar arrays are `array.array` for fast reads from Python."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays
        self.edge_start = _scalar(arrays["edge_start"])
        self.edge_byte = _scalar(arrays["edge_byte"])
        self.edge_child = _scalar(arrays["edge_child"])
        self.token_start = _scalar(arrays["token_start"])
        self.token_end = _scalar(arrays["token_end"])
        self.order = _scalar(arrays["order"])
        self.node_count = len(arrays["token_end"])
        self.root_child = [-1] * 256
        self.root_edge = [-1] * 256
        for e in range(self.edge_start[0], self.edge_start[1]):
            self.root_child[self.edge_byte[e]] = self.edge_child[e]
            self.root_edge[self.edge_byte[e]] = e
        self.first_byte = arrays["first_byte"]

    def tokens_spelling(self, data: bytes, start: int) -> list[tuple[int, int]]:
        """The tokens whose bytes are `data[start:end]` for some end, each with its end, shortest first."""
        found: list[tuple[int, int]] = []
        node = self.root_child[data[start]] if start < len(data) else -1
        at = start + 1
        while node >= 0:
            found.extend((token, at) for token in self.order[self.token_start[node] : self.token_start[node + 1]])
            if at == len(data):
                break
            low, high = self.edge_start[node], self.edge_start[node + 1]
            edge = bisect.bisect_left(self.edge_byte, data[at], low, high)
            node = self.edge_child[edge] if edge < high and self.edge_byte[edge] == data[at] else -1
            at += 1
        return found

    @cached_property
    def digit_runs(self) -> DigitRuns:
        return DigitRuns.build(self)

    @cached_property
    def edge_key(self) -> np.ndarray:
        """Each edge as `parent << 8 | byte`, sorted (edges are grouped by parent, bytes ascending): the
        keys `grammars.sweep` looks a state's transitions up in, made once per trie rather than per build
        (about 2 ms for DeepSeek's 274,692 edges)."""
        edge_start = self.arrays["edge_start"]
        parents = np.repeat(np.arange(len(edge_start) - 1), np.diff(edge_start))
        key: np.ndarray = parents << 8 | self.arrays["edge_byte"]
        return key

    @classmethod
    def build(cls, vocabulary: Vocabulary) -> TokenTrie:
        texts = [(t, i) for i, t in enumerate(vocabulary.tokens) if t]
        texts.sort()
        order = [i for _, i in texts]
        edge_parent: list[int] = []
        edge_byte: list[int] = []
        depth_of = [0]
        tokens_at = [0]  # sorted position of the first token ending at or under each node (creator)
        end_node = []
        path = [0]
        previous = b""
        for position, (data, _) in enumerate(texts):
            common = 0
            limit = min(len(previous), len(data))
            while common < limit and previous[common] == data[common]:
                common += 1
            del path[common + 1 :]
            for depth in range(common, len(data)):
                node = len(depth_of)
                edge_parent.append(path[depth])
                edge_byte.append(data[depth])
                depth_of.append(depth + 1)
                tokens_at.append(position)
                path.append(node)
            end_node.append(path[len(data)])
            previous = data
        node_count = len(depth_of)
        parents = np.asarray(edge_parent, dtype=np.int64)
        children = np.arange(1, node_count, dtype=np.int64)
        by_parent = np.argsort(parents, kind="stable")
        edge_start = np.searchsorted(parents[by_parent], np.arange(node_count + 1))
        ends = np.asarray(end_node, dtype=np.int64)
        token_start = np.searchsorted(ends, np.arange(node_count + 1)) if len(ends) else np.zeros(node_count + 1)
        # Subtree end: the next node in preorder whose depth is not greater.
        subtree_end = np.full(node_count, node_count, dtype=np.int64)
        stack: list[int] = []
        for node in range(node_count):
            while stack and depth_of[stack[-1]] >= depth_of[node]:
                subtree_end[stack.pop()] = node
            stack.append(node)
        token_end = np.append(np.asarray(tokens_at), len(order))[subtree_end]
        lengths = np.fromiter((len(data) for data, _ in texts), dtype=np.int64, count=len(texts))
        first_byte = np.full(vocabulary.size, -1, dtype=np.int32)
        for i, t in enumerate(vocabulary.tokens):
            if t:
                first_byte[i] = t[0]
        return cls(
            {
                "edge_start": edge_start,
                "edge_byte": np.asarray(edge_byte, dtype=np.int64)[by_parent],
                "edge_child": children[by_parent],
                "token_start": token_start,
                "token_end": token_end,
                "order": np.asarray(order, dtype=np.int64),
                "first_byte": first_byte,
                "blob": np.frombuffer(b"".join(data for data, _ in texts) + b"\x00", dtype=np.uint8),
                "offset": np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64),
                "length": lengths,
            }
        )


DIGITS = range(0x30, 0x3A)


@dataclass(frozen=True, eq=False)
class DigitRuns:
    """The trie's all-digit part, for walks where the digits step alike (inside a number). At depth k:
    `nodes[k]` are the trie nodes spelled by k digits and `paths[k]` their digits, one row each (k
    columns); `ids[k]` and `digits[k]` the same for the tokens ending there; `parents[k]` each node's
    parent as its row at depth k - 1; `exit_rows[k]` the trie edges on a non-digit byte that leave those
    nodes (`1234.` goes on below `1234` by `.`), with the row of the node each leaves. Depth 0 is the root."""

    nodes: tuple[np.ndarray, ...]
    paths: tuple[np.ndarray, ...]
    ids: tuple[np.ndarray, ...]
    digits: tuple[np.ndarray, ...]
    node_of: dict[bytes, int]  # digits → the all-digit node they spell
    parents: tuple[np.ndarray, ...]
    exit_rows: tuple[tuple[np.ndarray, np.ndarray], ...]

    @classmethod
    def build(cls, trie: TokenTrie) -> DigitRuns:
        node_of: dict[bytes, int] = {}
        nodes: list[np.ndarray] = []
        paths: list[np.ndarray] = []
        ids: list[np.ndarray] = []
        digits: list[np.ndarray] = []
        parents: list[np.ndarray] = []
        exit_rows: list[tuple[np.ndarray, np.ndarray]] = []

        def rows_of(pairs: list[tuple[int, bytes]], depth: int) -> tuple[np.ndarray, np.ndarray]:
            packed = np.frombuffer(b"".join(path for _, path in pairs), dtype=np.uint8)
            return np.asarray([n for n, _ in pairs], dtype=np.int64), packed.reshape(len(pairs), depth)

        level = [(0, b"")]
        level_parents: list[int] = []
        while level:
            depth = len(nodes)
            tokens = [
                (trie.order[p], path) for n, path in level for p in range(trie.token_start[n], trie.token_start[n + 1])
            ]
            node_of.update((path, node) for node, path in level)
            node_rows, token_rows = rows_of(level, depth), rows_of(tokens, depth)
            nodes.append(node_rows[0])
            paths.append(node_rows[1])
            ids.append(token_rows[0])
            digits.append(token_rows[1])
            parents.append(np.asarray(level_parents, dtype=np.int64))
            leaving: list[tuple[int, int]] = []
            deeper, level_parents = [], []
            for row, (node, path) in enumerate(level):
                for e in range(trie.edge_start[node], trie.edge_start[node + 1]):
                    byte = trie.edge_byte[e]
                    if byte in DIGITS:
                        deeper.append((trie.edge_child[e], path + bytes((byte,))))
                        level_parents.append(row)
                    elif node:
                        leaving.append((e, row))
            exit_rows.append((np.asarray([e for e, _ in leaving], dtype=np.int64),
                              np.asarray([row for _, row in leaving], dtype=np.int64)))
            level = deeper
        return cls(tuple(nodes), tuple(paths), tuple(ids), tuple(digits), node_of, tuple(parents), tuple(exit_rows))
