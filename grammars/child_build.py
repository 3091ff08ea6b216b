"""A whole index built in a child process, stored in the disk cache, for the caller to load from there.

The statute book's answer language takes over a minute of pure Python to build whole and about a GiB of
heap at its peak. Built inside a serving process, that minute competes for the GIL with the engine's loop
(a reload after a sync slows every running answer) and the heap stays mapped long after (the interpreter
keeps arenas). A child process pays both and gives them back when it exits; the caller waits on a pipe,
holding no GIL, and then loads what the child stored, as a restart would.

The child is the caller's interpreter importing this module from the caller's own `sys.path`: it reads the
grammar, the vocabulary, the cache folder and the index key pickled on its stdin, builds and stores the
index (`grammars.cache.save_index`), and answers on a pipe of its own with a pickled `BuildReport`, or with
the exception that stopped the build, which the caller raises as its own (a lexicon error reads the same as
in-process; a note on it holds the child's traceback). Its log records come back on its stdout and stderr,
one pipe, and are logged again by the caller under their own logger names, so a whole build's progress
shows in the service's log. A child that ends without an answer (killed, out of memory) is an
`IndexBuildError` quoting the last lines it wrote. No build outlives its reason: a caller interrupted kills
its child, a process that exits kills the children it still waits on, and a caller that dies (a service
killed) closes the request pipe, which the child watches.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures.thread  # noqa: F401  its exit hook, which joins pool threads, registered before ours (last runs first)
import contextlib
import json
import logging
import os
import pickle
import re
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from grammars.errors import IndexBuildError
from grammars.expr import Expr
from grammars.grammar import AnswerGrammar, CitationGrammar
from grammars.vocabulary import Vocabulary

log = logging.getLogger(__name__)
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
    under `key`; None where no child process can be started, or the grammar does not pickle (the caller
    builds in process)."""
    answer_end, answer_start = os.pipe()  # the answer's own pipe: nothing the child prints can mix into it
    try:
        child = subprocess.Popen(
            # -P and the caller's own sys.path: the child imports the code this process runs, never a
            # `grammars` folder in its working directory, which would store its own index under this key
            [sys.executable, "-P", "-c", _CHILD_START, str(answer_start), json.dumps(sys.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(answer_start,),
        )  # fmt: skip
    except OSError as error:
        os.close(answer_end)
        log.warning("building index %s in this process: no child process could be started (%s)", key, error)
        return None
    finally:
        os.close(answer_start)  # the child holds its own copy: the pipe ends when the child does
    log.info("building index %s in a child process (pid %d)", key, child.pid)
    assert child.stdin is not None and child.stdout is not None  # PIPEs
    answers = os.fdopen(answer_end, "rb")
    last_lines: collections.deque[str] = collections.deque(maxlen=_QUOTED_LINES)
    # relayed from the start, beside the request's writing: a child that prints much before it reads (a
    # site hook) would otherwise wait on a full pipe while this process waits to write
    relay = threading.Thread(target=_relay_log, args=(child.stdout, last_lines), name="index-build-log", daemon=True)
    relay.start()
    _running.add(child)
    try:
        try:
            # pickled straight into the pipe: no copy of the vocabulary (25 MiB) is held here meanwhile
            request = _Request(grammar, vocabulary, str(cache_dir), key, _relayed_level())
            pickle.dump(request, child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            child.stdin.flush()  # kept open: the child stops when it closes (this process gone)
        except BrokenPipeError:  # it died before reading its request: what it printed says why
            pass
        except (pickle.PicklingError, TypeError, AttributeError) as error:  # a grammar with a lambda in it
            _stop(child)
            log.warning("building index %s in this process: its grammar does not pickle (%s)", key, error)
            return None
        answer = _answer_of(answers)
        returncode = child.wait()
    except BaseException:
        _stop(child)  # a caller interrupted (a service stopping) leaves no build running
        raise
    finally:
        with contextlib.suppress(OSError):  # a request the dead child left unread fails its flush once more
            child.stdin.close()
        relay.join()
        child.stdout.close()
        answers.close()
        _running.discard(child)
    return _outcome(answer, returncode, child.pid, last_lines)


_CHILD_START = ("import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
                "from grammars.child_build import _child_main; sys.exit(_child_main(int(sys.argv[1])))")
# The children building now, stopped before the interpreter waits for the threads that wait on them: a
# service stopping (its builds run on a compile thread, which no KeyboardInterrupt reaches) does not wait
# out a minute's build. threading's hook runs before it joins non-daemon threads; atexit's only after.
_running: set[subprocess.Popen[bytes]] = set()


def _stop(child: subprocess.Popen[bytes]) -> None:
    child.kill()
    child.wait()  # reaped here: a large child's exit outlasts Popen's own short wait


def _stop_running_builds() -> None:
    for child in list(_running):
        child.kill()


getattr(threading, "_register_atexit", atexit.register)(_stop_running_builds)


def _answer_of(answers: IO[bytes]) -> bytes:
    """What the child wrote on its answer pipe, read until it exits."""
    return answers.read()


def _relayed_level() -> int:
    """The lowest level any logger of this package logs at here: the child's records below it would be
    dropped here anyway (its progress at INFO, wherever `grammars.index` is at INFO)."""
    names = [name for name in logging.Logger.manager.loggerDict if name.startswith("grammars")]
    return min(logging.getLogger(name).getEffectiveLevel() for name in ("grammars", *names))


def _relay_log(stream: IO[bytes], last: collections.deque[str]) -> None:
    """Log the child's records again here, as they come, keeping its last lines in `last`."""
    for raw in stream:
        line = raw.decode(errors="replace").rstrip("\n")
        last.append(line)
        level, _, rest = line.partition(_FIELD)
        name, _, message = rest.partition(_FIELD)
        if level.isdigit() and name.startswith("grammars"):
            logging.getLogger(name).log(int(level), "%s", message)
        else:  # not a record: a warning printed by Python, or the traceback of a crash
            log.warning("index build child: %s", line)


def _outcome(answer: bytes, returncode: int, pid: int, last_lines: collections.deque[str]) -> BuildReport:
    """The child's report, or the error it answered with, raised; an IndexBuildError where it gave neither."""
    found: object = None
    if answer:
        try:
            found = pickle.loads(answer)  # our own child's answer, on a pipe only we hold
        except Exception:  # cut short (the child killed while writing it)
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


def _child_main(answer_descriptor: int) -> int:
    """In the child: build and store what the request on stdin asks for, answer on `answer_descriptor`."""
    request: _Request = pickle.load(sys.stdin.buffer)  # written by our parent
    threading.Thread(target=_stop_with_parent, name="parent-watch", daemon=True).start()
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
    except Exception as error:  # handed to the parent, which raises it as its own, with where it came from
        error.add_note("raised in the index build's child process:\n" + traceback.format_exc().rstrip())
        answer: object = error
        status = 1
    else:
        answer = BuildReport(index.state_count, time.perf_counter() - started, _peak_rss_mib())
        status = 0
    try:
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)  # an exception whose constructor wants more than its message pickles, yet does not load
    except Exception:  # its type, message and traceback as an IndexBuildError then
        notes = "".join(f"\n{note}" for note in getattr(answer, "__notes__", ()))
        data = pickle.dumps(IndexBuildError(f"the index build failed: {type(answer).__name__}: {answer}{notes}"))
    with os.fdopen(answer_descriptor, "wb") as answer_channel:
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
