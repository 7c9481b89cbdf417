"""The snippet runner's progress: the order snippets start in, the time-left arithmetic and
the lines it writes (tools/running/progress.py)."""

import io
import json

from tools.running import progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_the_longest_expected_start_first_and_a_new_snippet_before_them_all():
    expected = {"short": 2.0, "long": 300.0, "middle": 40.0, "new": None}
    assert progress.longest_first(["short", "new", "middle", "long"], expected) == [
        "new", "long", "middle", "short"]


def test_durations_round_trip_and_a_new_snippet_is_expected_to_take_their_median(tmp_path):
    path = tmp_path / "durations.json"
    progress.write_durations({"b": 12.34, "a": 3.0, "c@16items": 40.0}, path)
    assert list(json.loads(path.read_text())) == ["a", "b", "c@16items"]  # sorted: diffs stay small
    assert progress.load_durations(path) == {"a": 3.0, "b": 12.3, "c@16items": 40.0}
    assert progress.unknown_seconds(progress.load_durations(path)) == 12.3
    assert progress.load_durations(tmp_path / "none.json") == {}
    assert progress.unknown_seconds({}) == progress.DEFAULT_S


def test_the_time_left_is_when_the_last_worker_ends_with_each_queued_on_the_first_free():
    # two workers free at 2 s and 10 s; 8 -> the first (10), 5 -> 10 + 5, 5 -> 10 + 5
    assert progress.finish_time([10, 2], [8, 5, 5], workers=2) == 15
    assert progress.finish_time([], [30, 20, 10], workers=2) == 30  # 30 | 20 + 10
    assert progress.finish_time([], [30, 20, 10], workers=1) == 60
    assert progress.finish_time([], [30], workers=4) == 30
    assert progress.finish_time([-3], [], workers=2) == 0  # a run past its expected time: no less than 0


def test_the_estimate_follows_the_runs_and_scales_by_how_fast_the_finished_ones_were():
    clock = Clock()
    shown = progress.Progress(workers=2, clock=clock)
    for name, seconds in (("c", 30.0), ("b", 20.0), ("a", 10.0)):
        shown.queue(name, seconds)
    shown.expect_later("a@16", 20.0)
    assert shown.total == 4 and shown.seconds_left() == 50  # c | b + a, then a@16 on the first free
    shown.start("c")
    shown.start("b")
    clock.t = 5
    assert shown.seconds_left() == 45  # c 25 left | b 15 left + a 10, then a@16: 25 + 20
    assert shown.facts() == "0/4 · running c, b · about 45 s left"
    clock.t = 40  # b took 40 s where 20 were expected: everything takes twice as long here
    # c: 30 x 2 - 40 = 20 left | a: 10 x 2, then a@16: 20 x 2 on the first free
    assert shown.finish("b", 40.0) == "1/4 · running c · about 1 min 00 s left"
    assert shown.scale() == 2
    shown.drop_later("a")  # no claim asks for a@16 any more
    shown.start("a")
    assert shown.total == 3 and shown.seconds_left() == 20  # c 20 | a 10 x 2
    clock.t = 100  # a has run 60 s of its expected 10: this machine is at least 6 x slower
    assert shown.scale() == 6 and shown.seconds_left() == 80  # c: 30 x 6 - 100 | a: 10 x 6 - 60


def test_a_run_with_a_stand_in_expectation_does_not_scale_the_others():
    # A snippet no durations know is expected to take the median; how long it really takes says
    # nothing about this machine's speed (seen: one new 126 s snippet made the estimate 2 h).
    clock = Clock()
    shown = progress.Progress(workers=1, clock=clock)
    shown.queue("new", 20.0, guessed=True)
    shown.queue("known", 10.0)
    shown.start("new")
    clock.t = 120                                   # still running, 6 x its stand-in
    assert shown.scale() == 1 and shown.seconds_left() == 10
    shown.finish("new", 126.0)
    assert shown.scale() == 1 and shown.seconds_left() == 10


def test_a_terminal_gets_one_line_redrawn_and_log_lines_above_it():
    stream = io.StringIO()
    shown = progress.Progress(workers=1, stream=stream, live=True, clock=Clock())
    shown.queue("many_heads.pruning", 90.0)
    shown.start("many_heads.pruning")
    shown.log(lambda message: stream.write(message + "\n"))("  ran     index   1.0 s")
    shown.close()
    text = stream.getvalue()
    assert "\r\x1b[Ksnippets 0/1 · running many_heads.pruning (0 s) · about 1 min 30 s left" in text
    assert "\r\x1b[K  ran     index   1.0 s\n\r\x1b[Ksnippets 0/1" in text  # the line cleared, then drawn again
    assert text.endswith("\r\x1b[K")  # nothing left of it once the runner is done


def test_clock():
    assert [progress.clock(s) for s in (0.4, 59, 60, 185, 3599, 3725)] == [
        "0 s", "59 s", "1 min 00 s", "3 min 05 s", "59 min 59 s", "1 h 02 min"]
