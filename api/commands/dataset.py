"""`rummi dataset`: make and check training data (real photos converted, scenes generated).

    rummi dataset real --out data/real          convert the shared labelled photos
    rummi dataset synth --n 5000 --seed 7 --out data/synth
    rummi dataset check data/real               counts, splits, broken labels (exit 1 if broken)
    rummi dataset sheet --real data/real --synth data/synth --out docs/img/contact-sheet.png

The datasets package is imported only when a sub-command runs: it needs PyYAML and is training
tooling, while `rummi` itself must start on the runtime install.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("dataset", help="make and check training datasets",
                                   description=__doc__.splitlines()[0])
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    real = actions.add_parser("real", help="convert the shared labelled photos")
    real.add_argument("--source", type=Path, default=None,
                      help="photo export folder (default: $RUMMI_REAL_PHOTOS, else ../shared/datasets/rummikub-photos beside the checkout)")
    real.add_argument("--out", type=Path, required=True, help="output folder, e.g. data/real")
    real.add_argument("--val-fraction", type=float, default=0.2, help="share of each session held out")
    real.set_defaults(func=_real)

    synth = actions.add_parser("synth", help="generate labelled scenes")
    synth.add_argument("--n", type=int, default=1000, help="number of scenes")
    synth.add_argument("--seed", type=int, default=0, help="a seed reproduces a dataset exactly")
    synth.add_argument("--out", type=Path, required=True, help="output folder, e.g. data/synth")
    synth.add_argument("--real", type=Path, default=None,
                       help="photo export whose real tiles are pasted into scenes "
                            "(default: as for `real`; 'none' to skip)")
    synth.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    synth.add_argument("--val-fraction", type=float, default=0.1, help="share of scenes in val")
    synth.add_argument("--pressman-share", type=float, default=None,
                       help="chance a scene's box is of the pressman print (default 0.2; 1 for a "
                            "folder of that print alone, to weigh it in `rummi train reader`)")
    synth.set_defaults(func=_synth)

    check = actions.add_parser("check", help="check a dataset folder; exit 1 if a label is broken")
    check.add_argument("dir", type=Path, help="a folder written by `rummi dataset real|synth`")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(func=_check)

    sheet = actions.add_parser("sheet", help="contact sheet: generated scenes beside real photos")
    sheet.add_argument("--real", type=Path, required=True)
    sheet.add_argument("--synth", type=Path, required=True)
    sheet.add_argument("--out", type=Path, required=True)
    sheet.add_argument("--seed", type=int, default=0)
    sheet.set_defaults(func=_sheet)


def _source(path: Path | None) -> Path:
    from rummi.datasets.real import default_real_photos

    return path if path is not None else default_real_photos()


def _real(args: argparse.Namespace) -> int:
    from rummi.datasets.real import convert

    manifest = convert(_source(args.source), args.out, val_fraction=args.val_fraction)
    _print_summary(manifest)
    return 0


def _synth(args: argparse.Namespace) -> int:
    from rummi.datasets.synth.generate import generate

    real = None if args.real is not None and str(args.real) == "none" else _source(args.real)
    manifest = generate(args.out, n=args.n, seed=args.seed, real_source=real, workers=args.workers,
                        val_fraction=args.val_fraction, pressman_share=args.pressman_share)
    _print_summary(manifest)
    return 0


def _check(args: argparse.Namespace) -> int:
    from rummi.datasets.check import check_dataset

    report = check_dataset(args.dir)
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
    else:
        print(report.text())
    if report.problems:
        print(f"rummi dataset check: {len(report.problems)} problem(s) in {args.dir}; first: "
              f"{report.problems[0]}", file=sys.stderr)
        return 1
    return 0


def _sheet(args: argparse.Namespace) -> int:
    from rummi.datasets.contact_sheet import make_contact_sheet

    path = make_contact_sheet(args.real, args.synth, args.out, seed=args.seed)
    print(f"wrote {path}")
    return 0


def _print_summary(manifest: dict) -> None:
    for split, counts in manifest["splits"].items():
        print(f"{split}: {counts['images']} images, {counts['tiles']} tiles, {counts['crops']} crops")
    for variant, path in manifest["data_yaml"].items():
        print(f"{variant}: {path}")
