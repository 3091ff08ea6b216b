"""A whole index built in a child process (`compile_index(..., in_child=True)`): stored and served as one
built here, the child's errors raised here as their own, a child that dies a typed error that quotes it,
and no child at all a build here; the bugs a review found, each shown failing on the code before. Every child
is a real process of this interpreter; the ones made to fail or talk get a `sitecustomize` module on their
PYTHONPATH, which Python imports at start-up."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grammars import child_build
from grammars import compile as compile_module
from grammars.compile import compile_index
from grammars.errors import IndexBuildError, LexiconError
from grammars.expr import Deferred, Literals, Regex, seq
from grammars.grammar import CitationGrammar
from grammars.languages.answer import answer_grammar
from grammars.languages.lexicon import as_lexicon
from grammars.patterns import STALE_TEMPORARY_S, write_atomically
from grammars.vocabulary import Vocabulary

LEXICON = as_lexicon({"민법": ["1", "2", "3의2", "12"], "형법": ["1", "250"]})
GRAMMAR = answer_grammar(lexicon=LEXICON)
REPO = Path(__file__).resolve().parents[2]
VOCAB = Vocabulary((None, *sorted({p.encode() for p in ["민법", "형법", " 제", "1", "2", "12", "조", "의", " ", "제",
                                                         "25", "0", "다", "고", "대법원", " 판결", "."]})),
                   frozenset({0}))  # fmt: skip


def _child_starts_with(monkeypatch, tmp_path, code: str) -> None:
    """The next child runs `code` first (a sitecustomize on its PYTHONPATH)."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(code)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(folder), os.environ.get("PYTHONPATH")))))


def test_a_build_in_a_child_is_stored_and_served_as_one_built_here(tmp_path, monkeypatch) -> None:
    here = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "here")

    def no_build_here(*_args, **_kwargs):
        raise AssertionError("the automaton was compiled in the calling process")

    monkeypatch.setattr(compile_module, "automaton_of", no_build_here)  # the child imports its own
    apart = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "apart", in_child=True)
    assert apart.stored is not None and apart.key == here.key
    assert _same_masks_everywhere(here, apart)
    state = apart.advance_bytes(apart.initial_state, "민법 제3조의2".encode())
    assert state >= 0 and apart.is_accepting(state)


def _same_masks_everywhere(one, other) -> bool:
    """Both indexes walked side by side over every token from every state they reach: the same allowed
    tokens and acceptance at each (their state numbers may differ: sets iterate in another order in
    another process)."""
    pairs, seen = [(one.initial_state, other.initial_state)], set()
    while pairs:
        pair = pairs.pop()
        if pair in seen:
            continue
        seen.add(pair)
        a, b = pair
        allowed = one.allowed_tokens(a)
        if (allowed.tolist() != other.allowed_tokens(b).tolist()) or one.is_accepting(a) != other.is_accepting(b):
            return False
        pairs.extend((one.advance(a, t), other.advance(b, t)) for t in allowed.tolist() if t not in VOCAB.eos_ids)
    return len(seen) > 20


def test_a_stored_index_is_loaded_without_a_child(tmp_path, monkeypatch, caplog) -> None:
    compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))  # a child would not start
    with caplog.at_level(logging.INFO, logger="grammars"):
        assert compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path, in_child=True).stored is not None
    assert "child" not in caplog.text


def test_the_childs_lexicon_error_is_raised_here_as_a_build_here_raises_it(tmp_path) -> None:
    """Repeated words are found when a leaf is first used: during the build, in the child."""
    names = Literals(("민법", "형법", "민법"))
    repeated = CitationGrammar("statute", seq(names, " 제", Regex("[1-9]"), "조"), seq(names, " 제", Regex("[1-9]")))
    with pytest.raises(LexiconError) as here:
        compile_index(repeated, VOCAB, cache_dir=tmp_path / "here")
    with pytest.raises(LexiconError) as apart:
        compile_index(repeated, VOCAB, cache_dir=tmp_path / "apart", in_child=True)
    assert str(apart.value) == str(here.value) and "again at position 2" in str(apart.value)
    assert "raised in the index build's child process" in apart.value.__notes__[0]
    assert "_sorted_utf8" in apart.value.__notes__[0]  # the child's traceback, where it was raised


@pytest.mark.parametrize(
    ("code", "ended"),
    [
        ("import os, sys\nprint('the disk is full', file=sys.stderr, flush=True)\nos._exit(3)\n",
         "exited with status 3"),
        ("import os, signal, sys\nprint('the disk is full', file=sys.stderr, flush=True)\n"
         "os.kill(os.getpid(), signal.SIGKILL)\n", "was killed by signal 9 (out of memory?)"),
    ],
    ids=["exits", "killed"],
)
def test_a_child_that_ends_without_an_answer_is_an_index_build_error_quoting_it(
    tmp_path, monkeypatch, caplog, code, ended
) -> None:
    _child_starts_with(monkeypatch, tmp_path, code)
    with caplog.at_level(logging.WARNING, logger="grammars"), pytest.raises(IndexBuildError) as error:
        compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert ended in str(error.value) and "the disk is full" in str(error.value)
    assert "index build child: the disk is full" in caplog.text  # relayed as it came, too
    assert not list((tmp_path / "cache").glob("index-*.arrays"))


def test_the_childs_log_records_are_logged_here_under_their_names(tmp_path, monkeypatch, caplog) -> None:
    """A record as the child's logging writes it (level, logger, message) on its stderr."""
    record = "20 grammars.index 7 states so far"
    _child_starts_with(monkeypatch, tmp_path, f"import sys\nprint({record!r}, file=sys.stderr)\n")
    with caplog.at_level(logging.INFO, logger="grammars"):
        compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    relayed = [r for r in caplog.records if r.name == "grammars.index"]
    assert [(r.levelno, r.getMessage()) for r in relayed] == [(logging.INFO, "7 states so far")]
    built = [r.getMessage() for r in caplog.records if r.getMessage().startswith("built and stored")]
    assert len(built) == 1 and "in a child process" in built[0]


def test_where_no_child_starts_the_index_is_built_here_with_a_warning(tmp_path, monkeypatch, caplog) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python"))
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert index.stored is not None and "no child process could be started" in caplog.text


def test_an_interrupted_caller_leaves_no_child_building(tmp_path, monkeypatch, caplog) -> None:
    """A service stopping while it waits for a build: the child is killed, not waited for."""
    _child_starts_with(monkeypatch, tmp_path, "import time\ntime.sleep(60)\n")

    def interrupted(_answers):
        raise KeyboardInterrupt

    monkeypatch.setattr(child_build, "_answer_of", interrupted)
    started = time.monotonic()
    with caplog.at_level(logging.INFO, logger="grammars"), pytest.raises(KeyboardInterrupt):
        compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert time.monotonic() - started < 30
    pid = int(re.search(r"\(pid (\d+)\)", caplog.text).group(1))
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped


def test_an_answer_larger_than_a_pipe_is_read_rather_than_waited_on(tmp_path) -> None:
    """A LexiconError naming a 40,000-character word pickles to ~120 KB, past a pipe's 64 KiB: the caller
    must not wait for the child's stderr to end while the child waits for room to write its answer."""
    word = "가" * 40_000
    names = Literals((word, "형법", word))
    repeated = CitationGrammar("statute", seq(names, " 제", Regex("[1-9]"), "조"), seq(names, " 제", Regex("[1-9]")))
    raised: list[LexiconError] = []

    def build() -> None:
        try:
            compile_index(repeated, VOCAB, cache_dir=tmp_path, in_child=True)
        except LexiconError as error:
            raised.append(error)

    caller = threading.Thread(target=build, daemon=True)
    caller.start()
    caller.join(60)
    assert not caller.is_alive(), "the caller and its child wait on each other"
    assert len(raised) == 1 and word in str(raised[0])


def _exited(pid: int) -> bool:
    """Gone, or a zombie left for whoever adopted it to reap."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return re.search(r"^State:\s+Z", status, re.MULTILINE) is not None


def test_a_child_whose_parent_is_killed_stops_building(tmp_path, monkeypatch) -> None:
    """A service killed mid-build (no exception to catch, no kill sent) leaves no child building for nobody:
    the child sees its request pipe close. Its build is made to take a minute by a sitecustomize."""
    _child_starts_with(monkeypatch, tmp_path, "import time\nimport grammars.cache as cache\nsave = cache.save_index\n"
                       "cache.save_index = lambda *a, **k: (time.sleep(60), save(*a, **k))[1]\n")
    script = ("import logging, sys\nlogging.basicConfig(level=logging.INFO)\n"
              "from grammars.compile import compile_index\nfrom tests.grammars.test_child_build import GRAMMAR, VOCAB\n"
              f"compile_index(GRAMMAR, VOCAB, cache_dir={str(tmp_path / 'cache')!r}, in_child=True)\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join((os.environ["PYTHONPATH"], str(REPO)))}
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True, env=environment)
    with parent:
        for line in parent.stderr:
            if found := re.search(r"\(pid (\d+)\)", line):
                break
        else:
            pytest.fail("the parent never started a child")
        parent.kill()
    child = int(found.group(1))
    deadline = time.monotonic() + 20
    while not _exited(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _exited(child), "the child went on building after its parent was killed"


# pickled, a request past a pipe's 64 KiB: the child must read it while it is written
LARGE_VOCAB = Vocabulary((None, *(f"piece{i}".encode() for i in range(20_000))), frozenset({0}))


def test_a_child_that_dies_before_reading_a_large_request_is_an_index_build_error_quoting_it(
    tmp_path, monkeypatch
) -> None:
    _child_starts_with(monkeypatch, tmp_path, "import os, sys\nprint('no memory left', file=sys.stderr, flush=True)\n"
                                              "os._exit(3)\n")
    with pytest.raises(IndexBuildError) as error:
        compile_index(GRAMMAR, LARGE_VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert "exited with status 3" in str(error.value) and "no memory left" in str(error.value)


def test_a_child_that_prints_much_before_reading_a_large_request_is_not_waited_on(tmp_path, monkeypatch) -> None:
    _child_starts_with(monkeypatch, tmp_path, "import sys\nprint('x' * 200_000, file=sys.stderr, flush=True)\n")
    built: list[object] = []
    caller = threading.Thread(target=lambda: built.append(
        compile_index(GRAMMAR, LARGE_VOCAB, cache_dir=tmp_path / "cache", in_child=True)), daemon=True)
    caller.start()
    caller.join(60)
    assert not caller.is_alive(), "the caller waits to write while the child waits to print"
    assert built and built[0].stored is not None


def test_what_the_child_prints_on_its_stdout_is_relayed_and_leaves_its_answer_whole(
    tmp_path, monkeypatch, caplog
) -> None:
    _child_starts_with(monkeypatch, tmp_path, "print('hello from a site hook', flush=True)\n")
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert index.stored is not None and "index build child: hello from a site hook" in caplog.text


def test_the_child_runs_the_callers_code_not_a_grammars_folder_where_it_runs(tmp_path, monkeypatch) -> None:
    """`python -m` would import the working directory's `grammars` first and store what that builds under
    the caller's key."""
    shadow = tmp_path / "elsewhere" / "grammars"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise SystemExit('a grammars folder in the working directory ran')\n")
    monkeypatch.chdir(shadow.parent)
    index = compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert index.stored is not None and index.state_count > 20


def test_an_error_that_does_not_load_back_is_an_index_build_error_naming_it(tmp_path, monkeypatch) -> None:
    """An exception whose constructor wants more than its message pickles, yet fails to load."""
    _child_starts_with(monkeypatch, tmp_path, "import grammars.cache as cache\n"
                       "class PairError(Exception):\n"
                       "    def __init__(self, first, second):\n"
                       "        super().__init__(f'{first} and {second}')\n"
                       "def fail(*_args, **_kwargs):\n    raise PairError('one', 'two')\n"
                       "cache.save_index = fail\n")
    with pytest.raises(IndexBuildError, match="PairError: one and two") as error:
        compile_index(GRAMMAR, VOCAB, cache_dir=tmp_path / "cache", in_child=True)
    assert "raised in the index build's child process" in str(error.value)


def test_a_grammar_that_does_not_pickle_is_built_here_with_a_warning(tmp_path, caplog) -> None:
    made_here = seq("민법 제", Deferred("articles", lambda _key: Literals(("1", "12"))), "조")
    with caplog.at_level(logging.WARNING, logger="grammars"):
        index = compile_index(made_here, VOCAB, cache_dir=tmp_path, in_child=True)
    assert index.stored is not None and "does not pickle" in caplog.text
    state = index.advance_bytes(index.initial_state, "민법 제12조".encode())
    assert state >= 0 and index.is_accepting(state)


def test_a_process_that_exits_stops_the_builds_its_threads_wait_on(tmp_path, monkeypatch) -> None:
    """A service stopping while a compile thread waits on a build (no KeyboardInterrupt reaches that
    thread): the build is stopped, not waited out. The child's build is made to take a minute."""
    _child_starts_with(monkeypatch, tmp_path, "import time\nimport grammars.cache as cache\n"
                       "cache.save_index = lambda *a, **k: time.sleep(60)\n")
    # the compile thread a thread pool's, as the service's is: the pool's exit hook joins it
    script = ("import logging, time\nlogging.basicConfig(level=logging.INFO)\n"
              "from grammars import child_build\nfrom grammars.compile import compile_index\n"
              "from tests.grammars.test_child_build import GRAMMAR, VOCAB\n"
              "from concurrent.futures import ThreadPoolExecutor\n"
              f"ThreadPoolExecutor(1).submit(compile_index, GRAMMAR, VOCAB,\n"
              f"                             cache_dir={str(tmp_path / 'cache')!r}, in_child=True)\n"
              "while not child_build._running:\n    time.sleep(0.05)\n")  # then the main thread ends
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join((os.environ["PYTHONPATH"], str(REPO)))}
    started = time.monotonic()
    ended = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                           timeout=50)
    assert time.monotonic() - started < 30, "the process waited out its build"
    child = int(re.search(r"\(pid (\d+)\)", ended.stderr).group(1))
    assert _exited(child)


def test_the_child_logs_at_the_lowest_level_a_logger_of_the_package_logs_at_here(monkeypatch) -> None:
    """Its progress (grammars.index, INFO) comes back where only that logger is at INFO."""
    monkeypatch.setattr(logging.getLogger("grammars"), "level", logging.WARNING)
    monkeypatch.setattr(logging.getLogger("grammars.index"), "level", logging.INFO)
    assert child_build._relayed_level() == logging.INFO


def test_temporaries_a_killed_writer_left_are_removed_once_stale(tmp_path) -> None:
    target = tmp_path / "index-k.arrays"
    stale, fresh = tmp_path / "index-k.arraysab12.tmp", tmp_path / "index-k.arrayscd34.tmp"
    other = tmp_path / "other.arraysef56.tmp"  # another file's: not this writer's to judge
    for left in (stale, fresh, other):
        left.write_bytes(b"half")
    old = time.time() - STALE_TEMPORARY_S - 60
    for left in (stale, other):
        os.utime(left, (old, old))
    write_atomically(target, lambda stream: stream.write(b"whole"))
    assert target.read_bytes() == b"whole"
    assert not stale.exists() and fresh.exists() and other.exists()
