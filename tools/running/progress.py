"""What the snippet runner shows while it works: snippets done of all, the ones running, and
an estimate of the time left.

The estimate comes from each snippet's expected seconds: its last run in this cache, else
``tools/running/durations.json`` (committed, so a fresh clone has it; ``make durations``
writes it again from the cache), else the median of that file for a snippet it does not
know yet. The runner starts the longest first; the time left is when the last worker would
finish if every queued snippet went to the first free worker, as the runner does, with
every expected time scaled by how much slower or faster the finished snippets ran than
expected, or a running one if it is later still (this machine, its load).

On a terminal the facts are one line, redrawn every second; elsewhere (CI logs, a pipe)
they follow each finished snippet on its plain log line.
"""

from __future__ import annotations

import heapq
import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

DURATIONS = Path(__file__).with_name("durations.json")
DEFAULT_S = 30.0  # a snippet's expected seconds when nothing is known at all


def load_durations(path: Path | None = None) -> dict[str, float]:
    """The committed expected seconds, name -> seconds ({} if there is no file)."""
    try:
        text = (path or DURATIONS).read_text(encoding="utf-8")
        return {name: float(s) for name, s in json.loads(text).items()}
    except FileNotFoundError:
        return {}


def write_durations(seconds: dict[str, float], path: Path | None = None) -> None:
    """One snippet a line, sorted by name, to a tenth of a second: a refresh's diff shows
    which snippets got slower."""
    lines = [f"  {json.dumps(name)}: {round(s, 1)}" for name, s in sorted(seconds.items())]
    (path or DURATIONS).write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def unknown_seconds(durations: dict[str, float]) -> float:
    """What a snippet not yet in the file is expected to take: the median of those that are."""
    return statistics.median(durations.values()) if durations else DEFAULT_S


def longest_first(names: list[str], expected: dict[str, float | None]) -> list[str]:
    """The order to start ``names`` in: the longest expected first; a snippet with no expected
    time (new) before all of them, as it may be the longest."""
    return sorted(names, key=lambda name: (expected.get(name) is not None, -(expected.get(name) or 0)))


def finish_time(running: list[float], queued: list[float], workers: int) -> float:
    """Seconds until the last snippet ends: ``running`` holds the seconds left of those
    running, ``queued`` the expected seconds of the others in the order they start, each on
    the first worker free."""
    free = sorted(max(0.0, s) for s in running)[:workers]
    free += [0.0] * (workers - len(free))
    heapq.heapify(free)
    for seconds in queued:
        heapq.heappush(free, heapq.heappop(free) + seconds)
    return max(free)


def clock(seconds: float) -> str:
    """45 s, 3 min 05 s, 1 h 02 min."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """The snippets a run will execute, in the order they start, and what has become of each.
    ``live``: redraw one line on ``stream`` (a terminal) every second."""

    def __init__(self, workers: int, stream=None, live: bool = False, clock=time.monotonic):
        self.workers, self.stream, self.live, self.now = workers, stream or sys.stdout, live, clock
        self.queued: dict[str, float] = {}           # name -> expected seconds, in start order
        self.later: dict[str, float] = {}            # runs expected to be asked for later (more seeds)
        self.running: dict[str, tuple[float, float]] = {}  # name -> (started at, expected)
        self.guessed: set[str] = set()               # runs whose expected seconds are a stand-in
        self.done = 0
        self.expected_done = self.actual_done = 0.0
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.ticker = None
        if live:
            self.ticker = threading.Thread(target=self._tick, daemon=True)
            self.ticker.start()

    # -- what the runner tells it
    def queue(self, name: str, expected: float, guessed: bool = False) -> None:
        """``guessed``: ``expected`` is a stand-in (a snippet no durations know): its real time
        says nothing about the machine's speed, so it does not scale the others."""
        with self.lock:
            self.later.pop(name, None)
            self.queued[name] = expected
            if guessed:
                self.guessed.add(name)

    def expect_later(self, name: str, expected: float) -> None:
        """A run not asked for yet that will likely be (``snippet@16``: the last build needed it)."""
        with self.lock:
            self.later[name] = expected

    def later_names(self) -> set[str]:
        """The snippets with a run expected later."""
        with self.lock:
            return {name.partition("@")[0] for name in self.later}

    def drop_later(self, snippet: str) -> None:
        """No more runs of ``snippet`` will be asked for."""
        with self.lock:
            for name in [n for n in self.later if n.partition("@")[0] == snippet]:
                del self.later[name]

    def start(self, name: str) -> None:
        with self.lock:
            self.running[name] = (self.now(), self.queued.pop(name, 0.0))
            self._draw()

    def finish(self, name: str, seconds: float | None = None) -> str:
        """``name`` ended (``seconds``: its time, None if it failed); returns the facts for its log line."""
        with self.lock:
            started, expected = self.running.pop(name, (self.now(), self.queued.pop(name, 0.0)))
            self.done += 1
            if seconds is not None and expected > 0 and name not in self.guessed:
                self.expected_done += expected
                self.actual_done += seconds
            return self.facts()

    # -- what it shows
    @property
    def total(self) -> int:
        return self.done + len(self.running) + len(self.queued) + len(self.later)

    def scale(self) -> float:
        """Real seconds per expected second: of the finished runs (1 before any has), at least
        that of a run still running past its expected time (a busy machine shows there first)."""
        with self.lock:
            now = self.now()
            finished = self.actual_done / self.expected_done if self.expected_done else 1.0
            return max([finished] + [(now - started) / expected
                                     for name, (started, expected) in self.running.items()
                                     if expected > 0 and name not in self.guessed])

    def seconds_left(self) -> float:
        with self.lock:
            scale, now = self.scale(), self.now()
            running = [expected * scale - (now - started) for started, expected in self.running.values()]
            queued = [*self.queued.values(), *self.later.values()]  # those later are asked for last
            return finish_time(running, [s * scale for s in queued], self.workers)

    def facts(self, elapsed: bool = False) -> str:
        """"12/41 · running a, b · about 3 min 05 s left" (with ``elapsed``: each running one's seconds)."""
        with self.lock:
            now = self.now()
            running = ", ".join(f"{name} ({now - started:.0f} s)" if elapsed else name
                                for name, (started, _) in self.running.items())
            parts = [f"{self.done}/{self.total}"]
            if running:
                parts.append(f"running {running}")
            if self.running or self.queued or self.later:
                parts.append(f"about {clock(self.seconds_left())} left")
            return " · ".join(parts)

    # -- the terminal line
    def log(self, write):
        """``write`` with the live line cleared before and drawn again after."""
        def logged(message: str) -> None:
            with self.lock:
                if self.live:
                    self.stream.write("\r\x1b[K")
                write(message)
                self._draw()
        return logged

    def _draw(self) -> None:
        if not self.live or self.stop.is_set() or not self.total:
            return
        width = shutil.get_terminal_size().columns - 1
        line = f"snippets {self.facts(elapsed=True)}"
        self.stream.write("\r\x1b[K" + (line if len(line) <= width else line[:width - 1] + "…"))
        self.stream.flush()

    def _tick(self) -> None:
        while not self.stop.wait(1.0):
            with self.lock:
                self._draw()

    def close(self) -> None:
        with self.lock:
            if self.live and not self.stop.is_set():
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            self.stop.set()
