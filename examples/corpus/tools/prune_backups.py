#!/usr/bin/env python3
"""Prune dated backup archives with a grandfather-father-son policy.

Archives are named like ``home-2024-03-12.tar.zst``. The newest daily
archives are kept, then one per ISO week, then one per month; everything
else is deleted (or only listed with --dry-run).
"""
import argparse
import datetime as dt
import re
import sys
from pathlib import Path

NAME = re.compile(r"-(\d{4})-(\d{2})-(\d{2})\.tar\.(?:gz|zst)$")


def archive_date(path):
    """The date in an archive's file name, or None when it has none."""
    m = NAME.search(path.name)
    if not m:
        return None
    return dt.date(int(m[1]), int(m[2]), int(m[3]))


def select_keepers(dates, daily=7, weekly=4, monthly=12):
    """Which dates survive: the newest `daily` days, then the newest
    archive of each of the last `weekly` weeks and `monthly` months."""
    newest_first = sorted(set(dates), reverse=True)
    keep = set(newest_first[:daily])
    weeks, months = {}, {}
    for d in newest_first:
        weeks.setdefault(d.isocalendar()[:2], d)
        months.setdefault((d.year, d.month), d)
    keep.update(list(weeks.values())[:weekly])
    keep.update(list(months.values())[:monthly])
    return keep


def prune(folder, dry_run=False, **policy):
    """Deletes the archives in `folder` the policy does not keep and
    returns the paths it removed (or would remove)."""
    dated = {p: archive_date(p) for p in Path(folder).iterdir() if p.is_file()}
    dated = {p: d for p, d in dated.items() if d is not None}
    keep = select_keepers(dated.values(), **policy)
    doomed = sorted(p for p, d in dated.items() if d not in keep)
    for p in doomed:
        if not dry_run:
            p.unlink()
    return doomed


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--daily", type=int, default=7)
    args = ap.parse_args()
    for p in prune(args.folder, args.dry_run, daily=args.daily):
        print(("would delete " if args.dry_run else "deleted ") + str(p))
    sys.exit(0)
