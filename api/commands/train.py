"""`rummi train detector|reader|blend`: reproduce the shipped models (needs the `train` extra).

    rummi train detector --data data/real/obb/data.yaml --epochs 40 --imgsz 416 --seed 0
    rummi train reader --data data/real/crops --data data/synth/crops --epochs 30 --seed 0
    rummi train blend trained/tile-reader models/tile-reader --weight 0.5

Each writes ``model.onnx``, ``model.json`` and ``training.json`` into ``--out``
(``trained/tile-finder`` / ``trained/tile-reader`` by default, never over the shipped models);
progress goes to stderr.
torch and ultralytics are imported only when a training starts, so the rest of `rummi` works
without them.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from rummi.engine.errors import RummiError

#: Trained models land here unless --out says otherwise: in the folder the command runs in,
#: never over the shipped weights (which may sit in a read-only site-packages). Copy a model
#: into models/ to ship it.
TRAINED_DIR = Path("trained")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("train", help="train the tile finder or the tile reader (needs torch)",
                                   description=__doc__.splitlines()[0])
    which = parser.add_subparsers(dest="model", metavar="MODEL")
    which.required = True

    detector = which.add_parser("detector", help="the one-class tile finder (ultralytics YOLO, OBB)")
    detector.add_argument("--data", required=True, type=Path, action="append",
                          help="ultralytics data.yaml (obb or detect); repeat to add datasets: the first "
                               "(the real photos) gives its train images (less the last of each session, kept to "
                               "choose the checkpoint) and its val split, scored once at the end")
    detector.add_argument("--extra-images", type=int, default=500,
                          help="images drawn from each --data after the first (default 500)")
    detector.add_argument("--init", type=Path, default=None,
                          help="go on from weights trained here (a best.pt under runs/), not from scratch")
    detector.add_argument("--lr0", type=float, default=0.01)
    detector.add_argument("--perspective", type=float, default=0.0,
                          help="ultralytics' perspective augmentation (0.0005: a phone tilted strongly)")
    detector.add_argument("--task", choices=("obb", "detect"), default="obb")
    detector.add_argument("--epochs", type=int, default=40)
    detector.add_argument("--hours", type=float, default=None,
                          help="train for this wall-clock time instead of --epochs (ultralytics' time budget)")
    detector.add_argument("--imgsz", type=int, default=416)
    detector.add_argument("--batch", type=int, default=16)
    detector.add_argument("--architecture", default=None, help="ultralytics model yaml (default yolov8n[-obb])")
    detector.add_argument("--name", default="tile-finder", help="run folder under runs/")
    _common(detector, TRAINED_DIR / "tile-finder")
    detector.set_defaults(func=_train_detector)

    reader = which.add_parser("reader", help="the crop classifier: tile and which way up")
    reader.add_argument("--data", required=True, type=Path, action="append",
                        help="a crops folder with train/ and val/ class folders (repeatable)")
    reader.add_argument("--epochs", type=int, default=30)
    reader.add_argument("--batch", type=int, default=64)
    reader.add_argument("--scenes", type=Path, action="append", default=[],
                        help="a dataset root (with truth/ and detect/images/) whose photos also give crops "
                             "through jittered boxes, like the finder's (repeatable)")
    reader.add_argument("--epoch-size", type=int, default=3000,
                        help="crops drawn per epoch, each --data folder weighing the same")
    reader.add_argument("--init", type=Path, default=None,
                        help="fine-tune a reader's model.onnx (e.g. models/tile-reader/model.onnx) instead of "
                             "starting from scratch; its BatchNorms stay frozen")
    reader.add_argument("--lr", type=float, default=3e-3,
                        help="peak learning rate of the one-cycle schedule (default 3e-3; lower to fine-tune)")
    reader.add_argument("--joker-weight", type=float, default=1.0,
                        help="draw joker crops this many times their share within each folder (default 1)")
    _common(reader, TRAINED_DIR / "tile-reader")
    reader.set_defaults(func=_train_reader)

    blend = which.add_parser("blend", help="a fine-tuned model (reader or finder) averaged with the one it started from")
    blend.add_argument("tuned", type=Path, help="the fine-tuned model's folder (rummi train reader or detector --init)")
    blend.add_argument("start", type=Path, help="the folder of the model it started from")
    blend.add_argument("--weight", type=float, default=0.5,
                       help="the tuned model's share of every weight (default 0.5; 1: the tuned model)")
    blend.add_argument("--out", type=Path, default=TRAINED_DIR / "tile-reader-blend",
                       help=f"model folder to write, not one of the two blended (default "
                            f"{TRAINED_DIR / 'tile-reader-blend'})")
    blend.set_defaults(func=_blend)


def _common(parser: argparse.ArgumentParser, out: Path) -> None:
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (2 only on an idle machine)")
    parser.add_argument("--out", type=Path, default=out, help=f"model folder to write (default {out})")


def _need(*packages: str) -> None:
    """Training's packages are an extra (several GB); say how to get them, not a traceback."""
    import importlib.util

    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        raise RummiError(
            f"training needs {', '.join(missing)}: pip install 'rummi[train]' "
            "(in a checkout: make train-venv, then .venv-train/bin/rummi train ...)"
        )


def _command_line() -> str:
    return "rummi " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _train_detector(args: argparse.Namespace) -> int:
    for data in args.data:
        if not data.is_file():
            raise FileNotFoundError(f"{data}: no such data.yaml (make one with `rummi dataset`)")
    _need("torch", "ultralytics", "onnx")
    from rummi.vision.training.detector import train_detector

    record = train_detector(args.data, args.out, extra_images=args.extra_images, init=args.init, lr0=args.lr0,
                            task=args.task, epochs=args.epochs, imgsz=args.imgsz,
                            batch=args.batch, seed=args.seed, threads=args.threads,
                            architecture=args.architecture, run_name=args.name, command=_command_line(),
                            perspective=args.perspective, hours=args.hours)
    print(f"wrote {args.out}/model.onnx in {record.train_seconds} s: {record.metrics}")
    return 0


def _blend(args: argparse.Namespace) -> int:
    _need("onnx")
    from rummi.vision.training.blend import BlendError, blend_models

    try:
        blend_models(args.tuned, args.start, args.weight, args.out, command=_command_line())
    except BlendError as error:
        raise RummiError(str(error)) from None
    print(f"wrote {args.out}/model.onnx: {args.weight:g} x {args.tuned} + {1 - args.weight:g} x {args.start}")
    return 0


def _train_reader(args: argparse.Namespace) -> int:
    from rummi.vision.training.reader import check_joker_weight, train_reader  # torch only inside training

    check_joker_weight(args.joker_weight)
    if args.init is not None and not args.init.is_file():
        raise FileNotFoundError(f"{args.init}: no such model.onnx to start from")
    for folder in args.data:
        if not (folder / "train").is_dir():
            raise FileNotFoundError(f"{folder}: expected train/ and val/ class folders (make them with `rummi dataset`)")
    _need("torch", "onnx")
    record = train_reader(args.data, args.out, epochs=args.epochs, batch=args.batch, seed=args.seed,
                          threads=args.threads, epoch_size=args.epoch_size, scenes=args.scenes,
                          init=args.init, lr=args.lr, joker_weight=args.joker_weight,
                          command=_command_line())
    metrics = {k: v for k, v in record.metrics.items() if k != "history"}
    print(f"wrote {args.out}/model.onnx in {record.train_seconds} s: {metrics}")
    return 0
