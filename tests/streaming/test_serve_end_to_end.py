"""`citegen serve`'s parts end to end: the shipped model on CPU in the continuous-batching engine,
the verifier on the sample database, the answer service over a real socket. In strict mode every
citation a reader sees is a verified one, in canonical form, whatever the model wrote (every
canonical citation in the text came through as a verified citation event)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streaming_kit import answer_concurrently, assert_only_verified_citations_visible, engine_service_parts

from citegen.commands.serve_wiring import anchors_for
from streaming import create_app
from streaming.config import StreamingSettings
from verifier.database import Database
from verifier.importers import import_paths

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "data" / "models" / "ko-legal-tiny"
QUESTIONS = [
    "불법행위로 인한 손해배상책임의 요건은 무엇인가요?",
    "근로자를 해고하려면 어떤 요건이 필요한가요?",
    "계약을 해제하면 어떤 효과가 있나요?",
    "사기죄는 언제 성립하나요?",
]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MODEL / "config.json").exists(), reason="the shipped model is not in this checkout yet"
    ),
]


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory):
    from citegen.models import load_model

    database = Database.open(f"sqlite:///{tmp_path_factory.mktemp('e2e') / 'citegen.sqlite3'}")
    import_paths(database, [ROOT / "data" / "law", ROOT / "data" / "cases"])
    yield from engine_service_parts(database, load_model(MODEL, "cpu"), max_batch=len(QUESTIONS))
    database.close()


def test_concurrent_answers_show_only_verified_citations(serve, parts) -> None:
    source, verifier, lexicon = parts
    config = StreamingSettings(max_active=len(QUESTIONS))
    base = serve(create_app(config, source, verifier, anchors=anchors_for(lexicon)))
    bodies = [{"question": question, "max_tokens": 48, "seed": i} for i, question in enumerate(QUESTIONS)]
    for events in answer_concurrently(base, bodies):
        assert_only_verified_citations_visible(events, lexicon)
