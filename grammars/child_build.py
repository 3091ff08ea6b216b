"""A whole index built in a child process, stored in the disk cache, for the caller to load from there.

The statute book's answer language takes over a minute of pure Python to build whole and about a GiB of
heap at its peak. Built inside a serving process, that minute competes for the GIL with the engine's loop
(a reload after a sync slows every running answer) and the heap stays mapped long after (the interpreter
keeps arenas). A child process pays both and gives them back when it exits; the caller waits on a pipe,
holding no GIL, and then loads what the child stored, as a restart would.

The child is `python -m grammars.child_build` with the caller's interpreter: it reads the grammar, the
vocabulary, the cache folder and the index key pickled on its stdin, builds and stores the index
(`grammars.cache.save_index`), and answers on its stdout with a pickled `BuildReport`, or with the exception
that stopped the build, which the caller raises as its own (a lexicon error reads the same as in-process).
Its log records come back on its stderr and are logged again by the caller under their own logger names,
so a whole build's progress shows in the service's log. A child that ends without an answer (killed, out of
memory) is an `IndexBuildError` quoting the last lines it wrote. No build outlives its reason: a caller
interrupted kills its child, and a caller that dies (a service killed) closes the request pipe, which the
child watches.
"""

from __future__ import annotations

import collections
import logging
import os
import pickle
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from grammars.errors import IndexBuildError
from grammars.expr import Expr
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.vocabulary import Vocabulary

log = logging.getLogger(__name__)
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])  # where the child finds `grammars`
_QUOTED_LINES = 12  # the last lines of a child that died, quoted in the error
_FIELD = " "  # separates a record's level, logger and message on the child's stderr
_PARENT_GONE = 75  # the child's exit status when its parent went away mid-build


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a child's whole build made: states, seconds of building and storing, its peak resident set."""

    states: int
    seconds: float
    peak_rss_mib: float | None  # None where the system does not say


@dataclass(frozen=True, slots=True)
class _Request:
    grammar: CitationGrammar | AnswerGrammar | Expr
    vocabulary: Vocabulary
    cache_dir: str
    key: str
    log_level: int


def build_in_child(
    grammar: CitationGrammar | AnswerGrammar | Expr, vocabulary: Vocabulary, cache_dir: Path, key: str
) -> BuildReport | None:
    """Build the index of `grammar` over `vocabulary` whole in a child process and store it in `cache_dir`
    under `key`; None where no child process can be started (the caller builds in process)."""
    environment = dict(os.environ)
    # last, so that it adds `grammars` where the interpreter would not find it and shadows nothing
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, (environment.get("PYTHONPATH"), _PACKAGE_ROOT)))
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "grammars.child_build"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
        )  # fmt: skip
    except OSError as error:
        log.warning("building index %s in this process: no child process could be started (%s)", key, error)
        return None
    log.info("building index %s in a child process (pid %d)", key, child.pid)
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None  # PIPEs
    with child:
        try:
            try:
                # pickled straight into the pipe: no copy of the vocabulary (25 MiB) is held here meanwhile
                request = _Request(grammar, vocabulary, str(cache_dir), key, log.getEffectiveLevel())
                pickle.dump(request, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                child.stdin.flush()  # kept open: the child stops when it closes (this process gone)
            except BrokenPipeError:  # it died before reading its request: its stderr says why
                pass
            last_lines = _relay_log(child.stderr)
            answer = child.stdout.read()
            returncode = child.wait()
        except BaseException:
            child.kill()  # a caller interrupted (a service stopping) leaves no build running
            raise
    return _outcome(answer, returncode, child.pid, last_lines)


def _relay_log(stream: IO[bytes]) -> collections.deque[str]:
    """Log the child's records again here, as they come; returns its last lines."""
    last: collections.deque[str] = collections.deque(maxlen=_QUOTED_LINES)
    for raw in stream:
        line = raw.decode(errors="replace").rstrip("\n")
        last.append(line)
        level, _, rest = line.partition(_FIELD)
        name, _, message = rest.partition(_FIELD)
        if level.isdigit() and name.startswith("grammars"):
            logging.getLogger(name).log(int(level), "%s", message)
        else:  # not a record: a warning printed by Python, or the traceback of a crash
            log.warning("index build child: %s", line)
    return last


def _outcome(answer: bytes, returncode: int, pid: int, last_lines: collections.deque[str]) -> BuildReport:
    """The child's report, or the error it answered with, raised; an IndexBuildError where it gave neither."""
    found: object = None
    if answer:
        try:
            found = pickle.loads(answer)  # our own child's answer, on a pipe only we hold
        except (pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            found = None
    if isinstance(found, BaseException):
        raise found
    if isinstance(found, BuildReport) and returncode == 0:
        return found
    ended = f"was killed by signal {-returncode}" if returncode < 0 else f"exited with status {returncode}"
    hint = " (out of memory?)" if returncode == -9 else ""
    quoted = "\n".join(last_lines) or "(nothing)"
    raise IndexBuildError(
        f"expected the index build's child process (pid {pid}) to store its index and report, but it {ended}"
        f"{hint} without an answer; its last lines:\n{quoted}"
    )


def _child_main() -> int:
    """In the child: build and store what the request on stdin asks for, answer on stdout."""
    request: _Request = pickle.load(sys.stdin.buffer)  # written by our parent
    threading.Thread(target=_stop_with_parent, name="parent-watch", daemon=True).start()
    # stdout carries the answer alone: whatever else prints there while it builds goes to stderr, relayed
    answer_channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    logging.basicConfig(stream=sys.stderr, level=request.log_level,
                        format=f"%(levelno)d{_FIELD}%(name)s{_FIELD}%(message)s")  # fmt: skip
    from grammars.cache import save_index  # noqa: PLC0415  grammars.compile imports this module
    from grammars.collector import collector_paused  # noqa: PLC0415
    from grammars.compile import automaton_of  # noqa: PLC0415
    from grammars.index import TokenIndex  # noqa: PLC0415

    started = time.perf_counter()
    try:
        with collector_paused():
            index = TokenIndex(automaton_of(request.grammar), request.vocabulary, request.key)
        save_index(index, Path(request.cache_dir))
    except Exception as error:  # handed to the parent, which raises it as its own
        answer: object = error
        status = 1
    else:
        answer = BuildReport(index.state_count, time.perf_counter() - started, _peak_rss_mib())
        status = 0
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an exception that does not pickle: its type and message do
        data = pickle.dumps(IndexBuildError(f"the index build failed: {type(answer).__name__}: {answer}"))
    # The parent reads stderr to its end before the answer: both log pipes are let go first, so an answer
    # larger than a pipe's buffer (a long error message) is read rather than left waiting on a full pipe
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, sys.stdout.fileno())
    os.dup2(nowhere, sys.stderr.fileno())
    with answer_channel:
        answer_channel.write(data)
    return status


def _stop_with_parent() -> None:
    """The parent keeps the request's pipe open while it waits: its end (the parent killed, a service gone)
    ends this build, which nobody would load."""
    # the descriptor read raw: a daemon thread blocked inside sys.stdin's buffer would hold its lock, which
    # the interpreter's shutdown then fails to take (an abort at every normal exit)
    while os.read(sys.stdin.fileno(), 65536):
        pass
    os._exit(_PARENT_GONE)


def _peak_rss_mib() -> float | None:
    """This process's peak resident set since its exec (VmHWM; getrusage's ru_maxrss would count the parent's
    pages shared at the fork), None where /proc does not say."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return None if found is None else int(found.group(1)) / 1024


if __name__ == "__main__":  # run by its package name, so that what it pickles names grammars.child_build, not __main__
    from grammars.child_build import _child_main as child_main

    sys.exit(child_main())
