"""Redaction and the log's neutraliser against text length: each hostile shape at 16k, 32k, 64k... characters.

For each shape (a dotted name after a URL, a long scheme-like run, a password without `@`, a repeated prefix of a
secret, random text...) and each length: the time of `Redactor.redact` (fed with `--secrets` secrets, each in
every form), of `redaction.log_safe`, and of a linear baseline measured in the same run on the same text
(`str.replace` of a string that does not occur plus `str.count("/")`: one pass in C). Printed: the seconds, the
ratio to the baseline, and the growth from the previous length (2.0 is linear: doubling the text doubles the
time; 4.0 is quadratic). A scaling check, not a test: the test is tests/redaction/test_redactor.py's bounded-time one.

    python3 bench/redaction.py [--secrets 40] [--max-k 1024] [--shape NAME]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from satori_ci.redaction import Redactor, log_safe  # noqa: E402

SHAPES: dict[str, Callable[[int], str]] = {
    "dotted name after a URL": lambda n: "//" + "a." * (n // 2),
    "scheme-like run": lambda n: "x-" * (n // 2) + "://",
    "password without @": lambda n: "http://a:" + "b:" * (n // 2),
    "user without @": lambda n: "http://" + "a" * n,
    "query leads": lambda n: "=" + "&a" * (n // 2),
    "secret prefix repeated": lambda n: "s3cret-value-" * (n // 13),
    "random printable": lambda n: "".join(random.Random(1).choices(string.printable, k=n)),
    "log commands": lambda n: "::warning::x\n##[error]y\x1b[2J\u2028" * (n // 28),
}


def _best(run: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--secrets", type=int, default=40, help="secrets fed to the redactor (default 40)")
    parser.add_argument("--max-k", type=int, default=1024, help="longest text, in thousands of characters")
    parser.add_argument("--shape", choices=sorted(SHAPES), help="only this shape")
    args = parser.parse_args()
    redactor = Redactor([f"s3cret-value-{i:03d}-{'x' * 20}" for i in range(args.secrets)])
    lengths = []
    k = 16
    while k <= args.max_k:
        lengths.append(k * 1000)
        k *= 2
    print(f"{args.secrets} secrets; times in seconds (best of 3); x base: the ratio to the linear baseline; "
          "growth: to the previous length (2.0 linear, 4.0 quadratic)")
    for name, build in SHAPES.items():
        if args.shape and name != args.shape:
            continue
        print(f"\n{name}")
        print(f"{'chars':>9}  {'baseline':>9}  {'redact':>8} {'x base':>7} {'growth':>6}  "
              f"{'log_safe':>8} {'x base':>7} {'growth':>6}")
        before: tuple[float, float] | None = None
        for n in lengths:
            text = build(n)
            base = _best(lambda t=text: (t.replace("\x00never\x00", ""), t.count("/")))  # type: ignore[misc]
            red = _best(lambda t=text: redactor.redact(t))  # type: ignore[misc]
            safe = _best(lambda t=text: log_safe(t))  # type: ignore[misc]
            growth = (f"{red / before[0]:6.1f}", f"{safe / before[1]:6.1f}") if before else ("     -", "     -")
            print(f"{len(text):>9,}  {base:9.5f}  {red:8.4f} {red / base:7.0f} {growth[0]}  "
                  f"{safe:8.4f} {safe / base:7.0f} {growth[1]}")
            before = (red, safe)


if __name__ == "__main__":
    main()
