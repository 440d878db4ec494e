"""Two groups compared by hand: Welch's difference of means with a 95 % interval, and the
sample size it would take to tell a difference of the size seen.

Why by hand: the memory report needs one quantile of Student's t. SciPy would be a large
dependency (tens of megabytes, compiled) for that one function, and the standard library has
the normal distribution (``statistics.NormalDist``) but not Student's t. The t distribution's
CDF is the regularized incomplete beta function, computed here with the continued fraction of
Numerical Recipes §6.4 (Lentz's method), and inverted by bisection; tests check it against
published table values.

Why Welch and not a bootstrap: the groups are of unequal size (one session in four is held
out) and may have unequal spread, which Welch's interval allows for; it is deterministic (the
same store gives the same report), where a bootstrap interval moves with its random draws. Its
weakness — skewed counts in small groups — is why the report says when a group holds fewer than
:data:`ENOUGH` sessions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev

ENOUGH = 50  # sessions per group before a difference is worth reading (seed source: Slate's holdout widget)
ALPHA = 0.05
POWER = 0.80


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 3e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < eps:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (df > 0, not necessarily whole)."""
    tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (0 < p < 1), by bisection on :func:`t_cdf`."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2.0


@dataclass(frozen=True)
class Group:
    n: int
    mean: float | None  # None without sessions
    sd: float | None  # None with fewer than two

    @classmethod
    def of(cls, values: list[float]) -> Group:
        return cls(len(values), fmean(values) if values else None, stdev(values) if len(values) > 1 else None)


@dataclass(frozen=True)
class Comparison:
    """``a`` minus ``b``: the difference of means, its 95 % Welch interval (None when either
    group has fewer than two sessions), and how many sessions each group would need."""

    a: Group
    b: Group
    difference: float | None
    low: float | None
    high: float | None
    df: float | None
    needed_a: int | None  # sessions in group a (and b below) to tell a difference this size
    needed_b: int | None


def compare(a: list[float], b: list[float], *, ratio: float = 3.0) -> Comparison:
    """Welch's comparison of ``a`` and ``b``. ``ratio`` is how many sessions group ``a`` gets
    for each one of ``b`` by design (the holdout: 3 pointed for 1 held out); it sizes the
    sample needed."""
    ga, gb = Group.of(a), Group.of(b)
    if ga.mean is None or gb.mean is None:
        return Comparison(ga, gb, None, None, None, None, None, None)
    diff = ga.mean - gb.mean
    if ga.sd is None or gb.sd is None:
        return Comparison(ga, gb, diff, None, None, None, None, None)
    va, vb = ga.sd**2 / ga.n, gb.sd**2 / gb.n
    se = math.sqrt(va + vb)
    if se == 0.0:
        # No spread in either group: the difference is exact; two sessions each tell it.
        needed = (2, 2) if diff != 0 else (None, None)
        return Comparison(ga, gb, diff, diff, diff, None, needed[0], needed[1])
    df = (va + vb) ** 2 / ((va**2 / (ga.n - 1) if va else 0.0) + (vb**2 / (gb.n - 1) if vb else 0.0))
    half = t_quantile(1.0 - ALPHA / 2.0, df) * se
    needed_a, needed_b = sample_size(ga.sd, gb.sd, diff, ratio=ratio)
    return Comparison(ga, gb, diff, diff - half, diff + half, df, needed_a, needed_b)


def sample_size(sd_a: float, sd_b: float, difference: float, *, ratio: float = 3.0) -> tuple[int | None, int | None]:
    """Sessions per group for a two-sided test at 5 % to find ``difference`` with 80 % power,
    group ``a`` getting ``ratio`` sessions for each one of ``b`` (normal approximation:
    n_b = (z_.975 + z_.80)^2 (sd_a^2 / ratio + sd_b^2) / difference^2). None when no difference
    was seen: there is nothing to size."""
    if difference == 0:
        return None, None
    z = NormalDist().inv_cdf(1.0 - ALPHA / 2.0) + NormalDist().inv_cdf(POWER)
    n_b = max(2, math.ceil(z * z * (sd_a**2 / ratio + sd_b**2) / difference**2))
    return max(2, math.ceil(n_b * ratio)), n_b
