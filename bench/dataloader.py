"""The GraphQL loaders' per-key cost: aiodataloader (as seqcore.graphql.loaders uses it)
against the floor, one batch call and one future per key, in the same run.

A page of 100 samples with their metadata and projects asks the loaders for about 300 keys;
the cost per key times that is what batching adds to such a request.

    .venv/bin/python bench/dataloader.py [--keys 100 10000] [--repeat 20] [--tiny]

``--tiny`` (100 keys, twice) checks the benchmark runs. It builds no application: it times
the loader alone.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, this file's directory comes first on sys.path, where bench/graphql.py would
# shadow the graphql package itself.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from seqcore.graphql.loaders import DataLoader  # noqa: E402


def batch(keys: list[int]) -> dict[int, int]:
    return {key: key * 2 for key in keys}


async def floor(keys: range) -> list[Any]:
    """What any loader must do: one future per key, one batch call, one lookup per key."""
    loop = asyncio.get_running_loop()
    futures = [loop.create_future() for _ in keys]
    found = batch(list(keys))
    for key, future in zip(keys, futures, strict=True):
        future.set_result(found.get(key))
    return await asyncio.gather(*futures)


async def loader(keys: range) -> list[Any]:
    dataloader = DataLoader(batch)
    return await asyncio.gather(*(dataloader.load(key) for key in keys))


async def best(fn: Callable[[range], Any], n: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        values = await fn(range(n))
        times.append(time.perf_counter() - start)
        assert values[-1] == (n - 1) * 2
    return min(times)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[100, 10000])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--tiny", action="store_true",
                        help="100 keys, twice: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.keys, args.repeat = [100], 2
    for n in args.keys:
        anchor = await best(floor, n, args.repeat)
        measured = await best(loader, n, args.repeat)
        print(f"{n:>6} keys: floor {anchor * 1e6 / n:6.2f} us/key, aiodataloader "
              f"{measured * 1e6 / n:6.2f} us/key, ratio {measured / anchor:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
