"""The generation backend, chosen in one place. `builtin` is citegen's own decode loop on the device
`Settings.device` names (`auto`: CUDA when present, else the CPU); `vllm` is vLLM's engine (the
`citegen[vllm]` extra). `Settings.backend` (`CITEGEN_BACKEND`) is the default, `--backend` overrides
it; `citegen serve` and `citegen recite --regenerate` take what they need from here, and no other
module branches on the backend's name. Both backends read the same settings: the model path, the
device, `forbid_shorthand` and the index cache directory.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the imports below load torch (or vLLM): only where a backend is built
    from citegen.commands.languages import ArticleLexicon
    from citegen.commands.serve_vllm import VllmSource
    from citegen.commands.serve_wiring import EngineSource
    from citegen.commands.settings import Settings
    from citegen.models import LoadedModel
    from citegen.recite.pipeline import Regenerator

Backend = Literal["builtin", "vllm"]
BACKENDS: tuple[Backend, ...] = ("builtin", "vllm")


def require(backend: Backend) -> None:
    """Refuse, before anything loads, a backend this environment cannot run."""
    if backend == "vllm":
        from citegen.commands.startup import require_vllm  # noqa: PLC0415

        require_vllm()


def recite_jobs(backend: Backend, regenerate: bool, jobs: int) -> int:
    """Worker processes for `citegen recite`: one vLLM engine holds the model (and its GPUs) and
    batches inside it, so re-generating on vLLM runs one worker."""
    return 1 if backend == "vllm" and regenerate else jobs


def answer_source(
    backend: Backend, settings: Settings, lexicon: ArticleLexicon, *, vllm_lexicon: Path, vllm_args: str
) -> EngineSource | VllmSource:
    """The service's generation source (a `streaming.GenerationSource` with a `close()`) over the
    database's `lexicon`."""
    if backend == "vllm":
        from citegen.commands.serve_vllm import vllm_source  # noqa: PLC0415  the citegen[vllm] extra

        return vllm_source(
            str(settings.model_path), lexicon, vllm_lexicon, vllm_args, settings.streaming.max_active,
            forbid_shorthand=settings.forbid_shorthand, index_cache_dir=settings.index_cache_dir,
        )
    from citegen.models import load_model  # noqa: PLC0415

    return engine_source(load_model(settings.model_path, settings.device), settings, lexicon)


def engine_source(loaded: LoadedModel, settings: Settings, lexicon: ArticleLexicon) -> EngineSource:
    """The builtin backend's source over a loaded model, its whole answer language ready before the
    first request (from the index cache: 0.1 s for the statute book; built and stored on a miss), and
    what its narrowings share (under a second for the statute book)."""
    from citegen.commands import serve_wiring as wiring  # noqa: PLC0415
    from citegen.engine import Engine  # noqa: PLC0415
    from citegen.models import freeze_loaded  # noqa: PLC0415
    from citegen.narrowings import constraint_library  # noqa: PLC0415

    # the same library over another lexicon: what POST /admin/reload compiles when the database moved
    relanguage = functools.partial(constraint_library, loaded.vocabulary, loaded.vocab_size,
                                   forbid_shorthand=settings.forbid_shorthand, cache_dir=settings.index_cache_dir)
    library = relanguage(lexicon)
    library.prepare()
    # out of the collector's passes: the model, its tokenizer, the database's first reading and the library
    # compiled over it (a reload replaces the last two and freezes its own: only a cycle in what it
    # replaces, a few thousand objects, would then stay uncollected, once per reload)
    freeze_loaded()
    return wiring.EngineSource(Engine(loaded, library, max_batch=settings.streaming.max_active), relanguage)


def regenerator(backend: Backend, model_path: Path, lexicon: ArticleLexicon, device: str) -> Regenerator:
    """What `citegen recite --regenerate` decodes with, over the database's canonical names only."""
    if backend == "vllm":
        from citegen.integrations.vllm_recite import VllmRegenerator  # noqa: PLC0415  the citegen[vllm] extra

        return VllmRegenerator.load(model_path, lexicon)
    from citegen.recite.regenerate import EngineRegenerator  # noqa: PLC0415  loads torch

    return EngineRegenerator.load(model_path, lexicon, device)
