"""The batch: collect drafts, recite each one (in worker processes), write outputs and reports.

Resumable: every finished document leaves its output and result under DIR, then a line in
`DIR/.recite/manifest.jsonl` keyed by the input's name, its SHA-256, the size limit and the batch's
fingerprint (the other options and the database's state: what changes results); a re-run skips
documents whose key is there. The manifest line is written last, so a document cut short by a crash
is simply done again. Outputs, result headers and reports replace their files whole (`atomic`): a
failed write leaves the previous file, never a truncated one; a document that fails leaves no
output, not an older run's. Deterministic:
documents are processed in sorted order and reported in that order whatever finishes first.
Bounded memory: at most two documents per worker are in flight, a result is written to disk as
it is made, and reports stream from disk (`reports.ResultFiles`).
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from citegen.recite.atomic import replacing, write_bytes_atomically
from citegen.recite.documents import read_document
from citegen.recite.errors import DocumentError
from citegen.recite.inputs import InputFile
from citegen.recite.limits import DEFAULT_MAX_BYTES
from citegen.recite.pipeline import RecitePipeline
from citegen.recite.reports import DocumentReport, ResultFiles, SummaryRow, write_html, write_jsonl
from citegen.recite.xmltext import Edit

if TYPE_CHECKING:
    from concurrent.futures import Future

logger = logging.getLogger(__name__)

PipelineFactory = Callable[[], RecitePipeline]  # called once per worker process
WORK_DIR = ".recite"
DOCUMENTS_DIR = "documents"
# Part of every job's key: results an older version left in a DIR are done again, never misread.
RESULT_FORMAT = 2  # 2: header, outcome lines and diff in three files (reports.ResultFiles)
# Allocations between two passes of the cyclic collector over the youngest objects while a batch runs
# (Python's default: 700). A batch allocates millions of objects that reference counting frees (few
# cycles), and each pass walked those alive: gc took 0.049 of a 1 MB draft's 0.79 CPU s and 0.24 of a
# 10 MB draft's 6.3 with the default, 0.019 and 0.079 with this.
_YOUNG_OBJECTS = 50_000


@dataclass(frozen=True, slots=True)
class BatchOptions:
    out: Path
    jobs: int = 1
    dry_run: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    fingerprint: str = ""  # what else changes results (the database and its contents, re-generation on/off)


@dataclass(slots=True)
class BatchSummary:
    documents: int = 0
    resumed: int = 0  # skipped because a previous run finished them
    documents_needing_review: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)

    @property
    def citations(self) -> int:
        return sum(self.actions.values())

    @property
    def exit_code(self) -> int:
        return 1 if self.documents_needing_review else 0


@dataclass(frozen=True, slots=True)
class _Job:
    source: InputFile
    key: str
    output: Path | None  # None on a dry run
    result: ResultFiles
    max_bytes: int


def run_batch(inputs: Sequence[InputFile], options: BatchOptions, factory: PipelineFactory,
              on_document: Callable[[InputFile, DocumentReport], None] | None = None) -> BatchSummary:
    """Recite every input (skipping those a previous run finished), then write both reports;
    `on_document` hears of each document as it is done, with its report's header."""
    work = options.out / WORK_DIR
    (work / "results").mkdir(parents=True, exist_ok=True)
    manifest_path = work / "manifest.jsonl"
    finished = _load_manifest(manifest_path)
    jobs, keys = [], []
    summary = BatchSummary()
    for source in inputs:
        job = _job_for(source, options, work)
        keys.append(job.key)
        previous = _finished_report(job, finished, options.out)
        if previous is None:
            jobs.append(job)
        else:
            summary.resumed += 1
            if on_document:
                on_document(source, previous)
    with manifest_path.open("a", encoding="utf-8") as manifest:
        for job, report in _run_jobs(jobs, options.jobs, factory):
            manifest.write(json.dumps({"key": job.key, "file": job.source.name, "status": report.status},
                                      ensure_ascii=False) + "\n")
            manifest.flush()
            if on_document:
                on_document(job.source, report)
    _write_reports(options.out, work, keys, summary)
    return summary


def _job_for(source: InputFile, options: BatchOptions, work: Path) -> _Job:
    digest = hashlib.sha256()
    try:
        path = source.open_path()
        status = path.stat()
        if status.st_size > options.max_bytes:  # too large to read: known by its size and time
            digest.update(f"{status.st_size}:{status.st_mtime_ns}".encode())
        else:
            with path.open("rb") as stream:
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(chunk)
    except DocumentError as error:  # outside its input: never opened, known by where it leads
        digest.update(str(error).encode())
    except OSError:
        digest.update(b"unreadable")  # the worker reports why; once readable, its key changes
    # The limit decides whether a document is read at all (too_large): a re-run with another one redoes it.
    key = hashlib.sha256(f"{source.name}\0{digest.hexdigest()}\0{options.fingerprint}\0{options.dry_run}"
                         f"\0{options.max_bytes}\0{RESULT_FORMAT}".encode()).hexdigest()[:32]
    output = None if options.dry_run else options.out / DOCUMENTS_DIR / source.name
    return _Job(source, key, output, ResultFiles(work / "results" / f"{key}.json"), options.max_bytes)


def _finished_report(job: _Job, finished: set[str], out: Path) -> DocumentReport | None:
    """The report a previous run left for this job, if it finished and its output is still there."""
    if job.key not in finished or not job.result.header.exists():
        return None
    report = job.result.read()
    return report if report.output is None or (out / report.output).exists() else None


def _load_manifest(path: Path) -> set[str]:
    keys = set()
    if path.exists():
        for line in path.read_text("utf-8").splitlines():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # a line cut short by an interrupted run
                continue
            if entry.get("status") != "failed":
                keys.add(entry["key"])
    return keys


def _run_jobs(jobs: Sequence[_Job], workers: int, factory: PipelineFactory) -> Iterator[tuple[_Job, DocumentReport]]:
    """Each job with its report, in the order given, whatever order they finish in."""
    if not jobs:
        return
    workers = min(workers, len(jobs))
    if workers <= 1:
        with _long_lived():
            pipeline = _built(factory)
            for job in jobs:
                yield job, DocumentReport.from_json(_recite_document(pipeline, job))
        return
    # Imported here: multiprocessing's pool costs 15 ms CPU to import, which one worker never uses.
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    window = 2 * workers
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(factory,)) as pool:
        pending: list[tuple[_Job, Future[str]]] = []
        for job in jobs:
            pending.append((job, pool.submit(_recite_in_worker, job)))
            if len(pending) >= window:
                done, future = pending.pop(0)
                yield done, DocumentReport.from_json(future.result())
        for done, future in pending:
            yield done, DocumentReport.from_json(future.result())


# The worker process's pipeline, built once by the pool's initializer: a process-level slot is
# the only way ProcessPoolExecutor hands per-process state to its tasks.
_worker_pipeline: RecitePipeline | None = None


def _start_worker(factory: PipelineFactory) -> None:
    global _worker_pipeline
    gc.freeze()  # `_long_lived` for the worker's whole life
    gc.set_threshold(_YOUNG_OBJECTS, *gc.get_threshold()[1:])
    _worker_pipeline = _built(factory)


@contextmanager
def _long_lived() -> Iterator[None]:
    """Leave what exists now (the modules) and the pipeline (`_built` in the block: the statute book's
    names, the finder's patterns) out of the cyclic collector's passes until the block ends (`gc.freeze`):
    hundreds of thousands of objects that outlive the batch, which each full pass walked again (0.4 of a
    10 MB draft's 10 CPU s, and 0.016 of every process's start-up in a pass while the pipeline was built);
    and pass over the youngest objects every `_YOUNG_OBJECTS` allocations."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(_YOUNG_OBJECTS, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _built(factory: PipelineFactory) -> RecitePipeline:
    """`factory()`, frozen (`_long_lived`) once built."""
    pipeline = factory()
    gc.freeze()
    return pipeline


def _recite_in_worker(job: _Job) -> str:
    if _worker_pipeline is None:
        raise RuntimeError("expected the worker initializer to have built a pipeline, got none")
    return _recite_document(_worker_pipeline, job)


def _recite_document(pipeline: RecitePipeline, job: _Job) -> str:
    """Recite one document and leave its result and output on disk; the result's header comes back."""
    output_name = None if job.output is None else f"{DOCUMENTS_DIR}/{job.source.name}"
    report = DocumentReport(job.source.name, output_name, "done")
    try:
        document = read_document(job.source.open_path(), job.max_bytes)
        edits: dict[int, list[Edit]] = {}
        # Each outcome written as it is decided: a long draft's are never all held.
        job.result.write_outcomes(report, pipeline.outcomes_of(document, edits), document.streams)
        report.encoding, report.doubts = document.encoding, list(document.doubts)
        if not report.counts:
            report.status = "no_citations"
        if job.output is not None:
            job.output.parent.mkdir(parents=True, exist_ok=True)
            write_bytes_atomically(job.output, document.render(edits))
        job.result.write_header(report)
    except DocumentError as error:
        report.status, report.message, report.output = error.kind, str(error), None
        _fail(job, report)
    except Exception as error:  # the batch boundary: one document's bug must not stop thousands
        logger.exception("reciting %s failed", job.source.name)
        report.status, report.message, report.output = "failed", repr(error), None
        _fail(job, report)
    return report.to_json()


def _fail(job: _Job, report: DocumentReport) -> None:
    """Record a failed document; an output an earlier run left for it goes, as the report says it has none."""
    # A folder there holds the outputs of an entry that was a readable folder before: not this one's.
    if job.output is not None and not job.output.is_dir():
        job.output.unlink(missing_ok=True)
    job.result.write_failure(report)


def _write_reports(out: Path, work: Path, keys: Sequence[str], summary: BatchSummary) -> None:
    """The summary and report.jsonl in one pass over the results on disk, report.html in a second."""
    results = [ResultFiles(work / "results" / f"{key}.json") for key in keys]
    rows = []
    with replacing(out / "report.jsonl") as jsonl:
        for result in results:
            report = result.read()
            summary.documents += 1
            summary.statuses[report.status] += 1
            summary.actions.update(report.counts)
            summary.documents_needing_review += report.needs_review
            rows.append(SummaryRow.of(report))
            write_jsonl(result, report, jsonl)
    with replacing(out / "report.html") as page:
        write_html(rows, ((result.read(), result) for result in results), page, "citegen recite")
