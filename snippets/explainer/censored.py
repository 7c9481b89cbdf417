"""Steps-to-target under a fixed budget, with unfinished runs *censored*.

A run that has not reached its target when the budget ends needed more steps than
the budget; how many more is unknown. Such a run is never averaged as if it had
finished at the budget: it is ranked after every finished run, and a statistic it
decides is unknown (``None``), not a number.
"""

import math


def median_steps(steps, finished) -> float | None:
    """Median of ``steps`` over runs, with the unfinished runs (``finished`` false)
    ranked last; ``None`` when the middle run (or one of the two middle runs, for an
    even count) is unfinished."""
    ranked = sorted(float(s) if f else math.inf for s, f in zip(steps, finished))
    n = len(ranked)
    middle = ranked[n // 2] if n % 2 else (ranked[n // 2 - 1] + ranked[n // 2]) / 2
    return None if math.isinf(middle) else middle


def at_least_twice(steps, finished, reference: float | None, budget: int) -> list[bool]:
    """Per run: surely needed at least twice ``reference`` steps? A finished run when
    ``steps >= 2 * reference``; an unfinished one when the budget itself is at least
    twice the reference (it needed more than the budget). An unknown reference, or an
    unfinished run against a reference above budget / 2, cannot be told: ``False``."""
    if reference is None:
        return [False] * len(steps)
    return [float(s) >= 2 * reference if f else budget >= 2 * reference
            for s, f in zip(steps, finished)]
