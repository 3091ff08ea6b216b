"""Importing the statute book from legalize-kr: real files at real commits (tests/fixtures)."""

from __future__ import annotations

import lzma
import subprocess
import tarfile
from pathlib import Path

import pytest
from legalize_history import REAL_HISTORY, build_legalize_repo
from sqlalchemy import Table, func, select

from verifier import Database, import_paths
from verifier.errors import MalformedFileError, UnsupportedShapeError
from verifier.importers.book import bundle_line, import_book
from verifier.importers.history import fold
from verifier.importers.legalize import parse_act
from verifier.models import ACTS, SPANS, SUPPLEMENTS, VERSIONS


def _real_file(path: str, newest: bool = True) -> str:
    with tarfile.open(REAL_HISTORY) as tar:
        names = [name for name in tar.getnames() if name.endswith(path)]
        return tar.extractfile(names[-1 if newest else 0]).read().decode()  # type: ignore[union-attr]


def _count(database: Database, table: Table) -> int:
    with database.engine.connect() as connection:
        return connection.execute(select(func.count()).select_from(table)).scalar_one()


def test_parse_real_file_reads_front_matter_articles_structure_and_supplements() -> None:
    version = parse_act(_real_file("kr/민사소송법/법률.md"), "민사소송법.md")
    assert (version.law_id, version.name, version.kind) == ("001700", "민사소송법", "법률")
    assert version.promulgation_number == 21455 and str(version.effective_on) == "2028-03-01"
    article = next(a for a in version.articles if (a.number, a.branch) == (1, 0))
    assert article.title == "민사소송의 이상과 신의성실의 원칙" and not article.deleted
    assert [provision.paragraph for provision in article.provisions] == [1, 2]
    assert version.supplements and version.supplements[0][0].startswith("부칙 <")


def test_parse_repealed_act_keeps_no_article_zero() -> None:
    repealed = parse_act(_real_file("kr/근로기준법/법률.md"), "근로기준법.md")
    assert repealed.law_id == "001769" and repealed.articles == ()


@pytest.mark.parametrize(("text", "error", "says"), [
    ("제목: 민법\n", MalformedFileError, "front matter"),
    ("---\n제목: 민법\n: broken\n---\n# 민법\n", MalformedFileError, "key: value"),
    ("---\n제목: 별지 서식\n법령구분: 법률\n---\n# 별지\n", UnsupportedShapeError, "법령ID"),
    ("---\n제목: 민법\n법령ID: '001706'\n법령MST: x1\n법령구분: 법률\n---\n", MalformedFileError, "numeric"),
], ids=["no-front-matter", "bad-line", "not-an-act", "bad-mst"])
def test_parse_bad_files_name_the_file(text: str, error: type, says: str) -> None:
    with pytest.raises(error, match=says) as raised:
        parse_act(text, "kr/x/법률.md")
    assert "kr/x/법률.md" in str(raised.value)


def test_import_history_versions_spans_and_names(book: Database) -> None:
    with book.engine.connect() as connection:
        acts = dict(connection.execute(select(ACTS.c.law_id, ACTS.c.name)).all())
        versions = connection.execute(select(VERSIONS.c.mst, VERSIONS.c.sequence, VERSIONS.c.change,
                                             VERSIONS.c.promulgation_number).order_by(VERSIONS.c.mst)).all()
        spans = connection.execute(select(func.count()).select_from(SPANS)).scalar_one()
    assert acts["001769"] == acts["001872"] == "근로기준법"  # two acts, one name, told apart by 법령ID
    assert len(versions) == 40  # every version in the fixture
    by_mst = {row.mst: row for row in versions}
    assert by_mst[58058].change == "전부개정" and by_mst[58058].promulgation_number == 6626
    total_articles = 0
    with book.engine.connect() as connection:
        for (first, last) in connection.execute(select(SPANS.c.first, SPANS.c.last)):
            total_articles += last - first + 1
    assert spans < total_articles  # unchanged articles share one span over many versions


def test_reimport_processes_only_new_versions(database: Database, tmp_path: Path) -> None:
    repo = build_legalize_repo(tmp_path / "repo", upto=20)
    first = import_book(database, repo)
    assert first.versions == 20 and not first.skipped
    spans_before = _count(database, SPANS)
    again = import_book(database, repo)
    assert (again.versions, again.acts) == (0, 0)
    build_legalize_repo(tmp_path / "repo")  # the source moves on
    more = import_book(database, repo)
    assert more.versions == 20 and _count(database, VERSIONS) == 40
    assert _count(database, SPANS) > spans_before
    # the incremental result equals a fresh import of the whole history
    fresh = Database.open(f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    import_book(fresh, repo)
    columns = (ACTS.c.law_id, SPANS.c.number, SPANS.c.branch, SPANS.c.first, SPANS.c.last, SPANS.c.structure)
    query = select(*columns).join(ACTS, ACTS.c.id == SPANS.c.act_id).order_by(*columns)
    with database.engine.connect() as mine, fresh.engine.connect() as theirs:
        assert mine.execute(query).all() == theirs.execute(query).all()
    fresh.close()


def test_bad_files_are_skipped_named_and_the_rest_imported(database: Database, tmp_path: Path) -> None:
    tree = tmp_path / "tree" / "kr"
    (tree / "민법").mkdir(parents=True)
    (tree / "헌법").mkdir()
    (tree / "민법" / "법률.md").write_text("---\n제목: 민법\n법령ID: '001706'\n: broken\n---\n", encoding="utf-8")
    (tree / "헌법" / "헌법.md").write_text(_real_file("kr/대한민국헌법/헌법.md"), encoding="utf-8")
    (tree / "헌법" / "별표.md").write_text("---\n제목: 별지 서식\n---\n# 별지\n", encoding="utf-8")
    report = import_book(database, tmp_path / "tree")
    assert report.versions == 1
    skipped = dict(report.skipped)
    assert set(skipped) == {str(tree / "민법" / "법률.md"), str(tree / "헌법" / "별표.md")}
    assert "key: value" in skipped[str(tree / "민법" / "법률.md")]


def test_bundle_roundtrip_and_truncated_bundle(database: Database, tmp_path: Path) -> None:
    versions = [parse_act(_real_file(path), path) for path in ("kr/대한민국헌법/헌법.md", "kr/형법/법률.md")]
    lines = [bundle_line([version], fold([version], 1, {})) for version in versions]
    bundle = tmp_path / "statutes.book.jsonl.xz"
    bundle.write_bytes(lzma.compress("\n".join(lines).encode()))
    report = import_book(database, bundle)
    assert (report.acts, report.versions, report.skipped) == (2, 2, [])
    assert import_book(database, bundle).unchanged == 2  # nothing new: nothing rewritten
    truncated = tmp_path / "cut.book.jsonl.xz"
    data = lzma.compress(("\n".join(lines) + "\n").encode() * 1)
    truncated.write_bytes(data[: len(data) // 2])
    empty = Database.open(f"sqlite:///{tmp_path / 'other.sqlite3'}")
    cut = import_book(empty, truncated)
    assert cut.skipped and str(truncated) in cut.skipped[-1][0] and "bundle" in cut.skipped[-1][1]
    with empty.engine.connect() as connection:  # whatever was imported is whole: each act with its spans
        for act_id, in connection.execute(select(ACTS.c.id)):
            assert connection.execute(select(func.count()).select_from(SPANS).where(SPANS.c.act_id == act_id)
                                      ).scalar_one() > 0
    empty.close()


def test_tarball_of_the_current_tree(database: Database, tmp_path: Path) -> None:
    tarball = tmp_path / "legalize-kr-current.tar.xz"
    with tarfile.open(tarball, "w:xz") as tar:
        source = tmp_path / "src" / "kr" / "형법"
        source.mkdir(parents=True)
        (source / "법률.md").write_text(_real_file("kr/형법/법률.md"), encoding="utf-8")
        tar.add(tmp_path / "src" / "kr", arcname="kr")
    reports = import_paths(database, [tarball])
    assert reports[0].counts["versions"] == 1 and _count(database, ACTS) == 1


def _commit(repo: Path, path: str, text: str, subject: str) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
                       check=True, capture_output=True)

    if not (repo / ".git").exists():
        repo.mkdir(parents=True, exist_ok=True)
        git("init", "-q")
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text, encoding="utf-8")
    git("add", path)
    git("commit", "-q", "-m", subject)


def _government_organization_act(mst: int, number: int, effective: str) -> str:
    """정부조직법 as legalize-kr has it after one of its 타법개정 of 2025. 12. 23. (real 법령MST, 공포번호 and
    시행일자), cut to its first article."""
    return (f"---\n제목: 정부조직법\n법령MST: {mst}\n법령ID: '001720'\n법령구분: 법률\n법령구분코드: ''\n소관부처:\n"
            f"- 행정안전부\n공포일자: 2025-12-23\n공포번호: '{number}'\n시행일자: {effective}\n법령분야: ''\n"
            "상태: 시행\n출처: https://www.law.go.kr/법령/정부조직법\n첨부파일: []\n---\n\n# 정부조직법\n\n"
            "## 제1장 총칙\n\n##### 제1조 (목적)\n\n이 법은 국가행정사무의 체계적이고 능률적인 수행을 위하여 "
            "국가행정기관의 설치ㆍ조직과 직무범위의 대강을 정함을 목적으로 한다.\n\n"
            f"## 부칙\n\n부칙 <제{number}호,2025.12.23>\n\n이 법은 공포한 날부터 시행한다.\n")


ORGANIZATION_ACT = "kr/정부조직법/법률.md"


def _commit_organization_act(repo: Path, *versions: tuple[int, int, str]) -> None:
    """Commits 정부조직법 at each (MST, 공포번호, 시행일자), in order."""
    for mst, number, effective in versions:
        _commit(repo, ORGANIZATION_ACT, _government_organization_act(mst, number, effective),
                "법률: 정부조직법 (타법개정)")


def _promulgation_numbers(database: Database) -> list[int]:
    with database.engine.connect() as connection:
        return list(connection.execute(select(VERSIONS.c.promulgation_number).order_by(VERSIONS.c.sequence))
                    .scalars())


def test_amendments_of_one_day_follow_their_promulgation_numbers_and_a_later_pull_appends(
        database: Database, tmp_path: Path) -> None:
    # legalize-kr commits one day's amendments in 공포번호 order, and their MSTs are in another: 제21215호
    # is MST 280391, 제21220호 MST 280357. Ordered by MST, the second sorted before the first, so a pull
    # that brought it could never be appended (skipped, on every later import too).
    repo = tmp_path / "repo"
    _commit_organization_act(repo, (280375, 21212, "2026-01-01"), (280391, 21215, "2026-01-01"))
    assert import_book(database, repo).versions == 2
    _commit_organization_act(repo, (280357, 21220, "2025-12-23"), (280413, 21223, "2026-01-01"))
    pulled = import_book(database, repo)
    assert (pulled.versions, pulled.skipped) == (2, [])
    assert _promulgation_numbers(database) == [21212, 21215, 21220, 21223]
    fresh = Database.open(f"sqlite:///{tmp_path / 'fresh.sqlite3'}")  # the same order as a fresh import
    import_book(fresh, repo)
    with fresh.engine.connect() as connection:
        assert list(connection.execute(select(VERSIONS.c.mst).order_by(VERSIONS.c.sequence)).scalars()) == [
            280375, 280391, 280357, 280413]
    fresh.close()


def test_a_version_older_than_one_held_rebuilds_the_act_from_the_repository(
        database: Database, tmp_path: Path) -> None:
    # legalize-kr may add a version after a later one (an amendment of the same day committed late): it sorts
    # before what the database holds, so it could not be appended, and the import skipped it, asking for the
    # act's whole history, which the repository holds; every later pull skipped it again
    repo = tmp_path / "repo"
    _commit_organization_act(repo, (280375, 21212, "2026-01-01"), (280391, 21215, "2026-01-01"))
    assert import_book(database, repo).versions == 2
    # a re-render of a version held (same MST, another commit): the rebuild inserted it twice, refused (a review)
    rerender = _government_organization_act(280391, 21215, "2026-01-01").replace("# 정부조직법\n", "# 정부조직법 \n")
    _commit(repo, ORGANIZATION_ACT, rerender, "법률: 정부조직법 (타법개정)")
    assert (import_book(database, repo).versions, _count(database, VERSIONS)) == (0, 2)
    _commit_organization_act(repo, (280357, 21208, "2026-01-01"))
    pulled = import_book(database, repo)
    assert (pulled.versions, pulled.skipped) == (1, [])
    assert _promulgation_numbers(database) == [21208, 21212, 21215]
    assert _count(database, SUPPLEMENTS) == 3  # each version's 부칙 once: the rebuilt versions' old rows went with them
    again = import_book(database, repo)
    assert (again.versions, again.skipped) == (0, [])


def test_a_first_supplement_of_another_act_is_kept() -> None:
    # 항만법 (법률 제16568호 and on) opens its 부칙 with the 부칙 of 양식산업발전법, which amended it
    head = _real_file("kr/형법/법률.md").split("## 부칙")[0]
    tail = ("## 부칙\n\n부칙(양식산업발전법) <제16568호,2019.8.27>\n\n\n제1조(시행일) 이 법은 공포 후 1년이 "
            "경과한 날부터 시행한다.\n\n\n제2조 부터 제14조까지 생략\n\n\n"
            "부칙 <제16902호,2020.1.29>\n\n\n제1조(시행일) 이 법은 공포 후 1년이 경과한 날부터 시행한다.\n")
    version = parse_act(head + tail, "kr/항만법/법률.md")
    assert [heading for heading, _ in version.supplements] == ["부칙 <제16568호,2019.8.27>",
                                                               "부칙 <제16902호,2020.1.29>"]
    assert version.supplements[0][1].startswith("제1조(시행일) 이 법은 공포 후 1년이")


def test_a_file_in_another_encoding_is_skipped_named_and_a_windows_saved_one_read(
        database: Database, tmp_path: Path) -> None:
    text = _real_file("kr/형법/법률.md")
    tree = tmp_path / "tree" / "kr"
    (tree / "형법").mkdir(parents=True)
    (tree / "헌법").mkdir()
    (tree / "형법" / "법률.md").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())  # BOM, CRLF
    (tree / "헌법" / "헌법.md").write_bytes(_real_file("kr/대한민국헌법/헌법.md").encode("cp949"))  # EUC-KR
    report = import_book(database, tmp_path / "tree")
    assert report.versions == 1
    assert report.skipped == [(str(tree / "헌법" / "헌법.md"), "byte 5: expected UTF-8 text, got byte 0xc1")]
    clean = tmp_path / "clean" / "kr" / "형법"
    clean.mkdir(parents=True)
    (clean / "법률.md").write_text(text, encoding="utf-8")
    other = Database.open(f"sqlite:///{tmp_path / 'clean.sqlite3'}")
    import_book(other, tmp_path / "clean")
    query = select(SPANS.c.number, SPANS.c.branch, SPANS.c.title, SPANS.c.structure, SPANS.c.text).order_by(
        SPANS.c.number, SPANS.c.branch)
    with database.engine.connect() as windows, other.engine.connect() as unix:
        assert windows.execute(query).all() == unix.execute(query).all()
    other.close()
