"""R's random numbers where cellWise parity needs them: ``set.seed(seed)`` with R's default
Mersenne-Twister, ``unif_rand()``, and RcppArmadillo's ``sample(x, size, replace = FALSE)``.

cellWise 2.5.3's ``estLocScale`` computes its Huber estimates of a column with more
than ``nLocScale`` (25000) values from a subsample drawn after ``set.seed(0)`` by
RcppArmadillo's ``SampleNoReplace``; reproducing its numbers needs the same draws. NumPy's
``MT19937`` is the same generator (Matsumoto & Nishimura 1998); only R's seeding (an initial
scrambling by the congruential generator ``69069 s + 1``) and R's mapping to (0, 1) are
written here.

References
----------
Matsumoto, M. and Nishimura, T. (1998). Mersenne Twister: a 623-dimensionally equidistributed
uniform pseudo-random number generator. ACM TOMACS 8, 3-30.
R Core Team, ``src/main/RNG.c`` (``RNG_Init``, ``MT_genrand``, ``fixup``), as documented in
``?RNGkind``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

__all__ = ["r_uniforms", "r_sample_no_replace"]

_MASK = 0xFFFFFFFF
_I2_32M1 = 2.328306437080797e-10  # 1 / (2**32 - 1), R's fixup
_TO_UNIT = 2.3283064365386963e-10  # 2**-32, MT_genrand


def _r_mt_state(seed: int) -> NDArray[np.uint32]:
    """The 624 words R's ``set.seed(seed)`` puts into the Mersenne-Twister."""
    s = seed & _MASK
    for _ in range(50):  # initial scrambling
        s = (69069 * s + 1) & _MASK
    words = np.empty(625, dtype=np.uint32)
    for j in range(625):  # dummy[0] (then mti = 624) and mt[0..623]
        s = (69069 * s + 1) & _MASK
        words[j] = s
    return words[1:]


def r_uniforms(size: int, seed: int = 0) -> NDArray[np.float64]:
    """The first ``size`` values of R's ``runif()`` after ``set.seed(seed)`` (default kinds).

    Examples
    --------
    >>> from boxcoxstat.robust._rrng import r_uniforms
    >>> r_uniforms(3).round(7).tolist()  # set.seed(0); runif(3) in R
    [0.8966972, 0.2655087, 0.3721239]
    """
    bitgen = np.random.MT19937()
    bitgen.state = {"bit_generator": "MT19937",
                    "state": {"key": _r_mt_state(seed), "pos": 624}}
    raw = bitgen.random_raw(size).astype(np.float64)
    u = raw * _TO_UNIT
    u = np.where(u <= 0.0, 0.5 * _I2_32M1, u)
    return np.where(1.0 - u <= 0.0, 1.0 - 0.5 * _I2_32M1, u)


@lru_cache(maxsize=8)
def r_sample_no_replace(n: int, size: int, seed: int = 0) -> NDArray[np.intp]:
    """0-based positions RcppArmadillo's ``sample(x, size, FALSE)`` takes from ``x`` of length
    ``n`` right after ``set.seed(seed)``: ``j = floor(k u)`` from the ``k`` positions left,
    the chosen one replaced by the last (RcppArmadillo's ``SampleNoReplace``).

    Examples
    --------
    >>> from boxcoxstat.robust._rrng import r_sample_no_replace
    >>> r_sample_no_replace(10, 3).tolist()
    [8, 2, 9]
    """
    u = r_uniforms(size, seed)
    sub = np.arange(n)
    out = np.empty(size, dtype=np.intp)
    left = n
    for i in range(size):
        j = int(left * u[i])
        out[i] = sub[j]
        left -= 1
        sub[j] = sub[left]
    out.setflags(write=False)
    return out
