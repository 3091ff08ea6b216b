"""Write the whole sample data set under a data/ directory: `python data/tools/sample_data [--seed N]`."""

from __future__ import annotations

import argparse
import logging
import random
import shutil
from pathlib import Path

from sample_data.case_files import write_cases
from sample_data.cases import CaseRecord, build_cases
from sample_data.draft_topics import CHECKS, TOPICS, Pools
from sample_data.drafts import DraftBuilder, write_drafts
from sample_data.statutes import Act, build_acts, write_statutes

DEFAULT_SEED = 20261129
DATA_DIR = Path(__file__).resolve().parents[2]
GENERATED = ("synthetic_law", "cases", "drafts")
VARIANTS = 3
# Two drafts are saved in CP949, as older Korean word processors do, to exercise encoding detection.
CP949_DRAFTS = ("09_tort_1.txt", "11_lease_1.txt")
MARKDOWN_TOPICS = ("dismissal", "defamation")
logger = logging.getLogger(__name__)


def reviewable_provisions(acts: list[Act]) -> list[tuple[str, int, int]]:
    """Provisions a synthetic 헌재 case may review: statutes (not decrees), articles not deleted."""
    return [(act.spec.name, article.number, article.branch) for act in acts if act.spec.kind == "법률"
            for article in act.articles if not article.deleted_on and article.number > 1]


def generate(data_dir: Path, seed: int) -> None:
    for name in GENERATED:
        shutil.rmtree(data_dir / name, ignore_errors=True)
    acts = build_acts(seed)
    write_statutes(acts, data_dir / "synthetic_law")
    cases = build_cases(seed, reviewable_provisions(acts))
    write_cases(cases, data_dir / "cases")
    labels = write_drafts(build_drafts(seed, acts, cases), data_dir / "drafts")
    logger.info("wrote %d acts (%d articles), %d cases and %d labelled draft citations under %s", len(acts),
                sum(len(a.articles) for a in acts), len(cases), len(labels), data_dir)


def build_drafts(seed: int, acts: list[Act], cases: list[CaseRecord]) -> list[tuple[DraftBuilder, str]]:
    by_name = {act.spec.name: act for act in acts}
    drafts = []
    for variant in range(VARIANTS):
        for index, (name, topic) in enumerate(TOPICS, 1):
            extension = "md" if name in MARKDOWN_TOPICS else "txt"
            builder = DraftBuilder(f"{variant * len(TOPICS) + index:02d}_{name}_{variant}.{extension}", by_name)
            topic(builder, Pools(cases, random.Random(f"{seed}:draft:{name}:{variant}")), by_name)
            drafts.append((builder, "cp949" if builder.file in CP949_DRAFTS else "utf-8"))
    for name, topic in CHECKS:
        for variant in range(2):
            builder = DraftBuilder(f"{len(drafts) + 1:02d}_{name}_{variant}.txt", by_name)
            topic(builder, Pools(cases, random.Random(f"{seed}:draft:{name}:{variant}")), by_name)
            drafts.append((builder, "utf-8"))
    return drafts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="the data/ directory to (re)write")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    generate(args.out, args.seed)
