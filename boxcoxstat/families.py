"""The Box-Cox and Yeo-Johnson transforms as pure math.

Forward, inverse, log-Jacobian and the logarithm of the transformed magnitude, vectorised over
data and lambda by NumPy broadcasting. Every formula is written through ``exprel`` and
``log1p`` so that lambda = 0 (and lambda = 2 for Yeo-Johnson negatives) needs no branch:

.. math::

    \\psi_{BC}(\\lambda, x) = \\frac{x^\\lambda - 1}{\\lambda}
        = \\log x \\cdot \\operatorname{exprel}(\\lambda \\log x),
    \\qquad \\operatorname{exprel}(a) = \\frac{e^a - 1}{a}.

References
----------
- Box, G. E. P. and Cox, D. R. (1964). An analysis of transformations. JRSS B 26, 211-243.
- Yeo, I.-K. and Johnson, R. A. (2000). A new family of power transformations to improve
  normality or symmetry. Biometrika 87, 954-959.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._special import exprel, log1prel, log_exprel
from ._validation.columns import BoxCoxError, check_number, normalize_family
from .exceptions import TransformOverflowError

__all__ = [
    "boxcox",
    "boxcox_inverse",
    "boxcox_logjac",
    "yeojohnson",
    "yeojohnson_inverse",
    "yeojohnson_logjac",
    "transform",
    "inverse_transform",
    "log_jacobian",
    "log_abs_transform",
    "forward_unchecked",
    "inverse_unchecked",
    "log_jacobian_unchecked",
    "log_abs_unchecked",
    "rectified_unchecked",
    "shifted_base",
    "derivative",
    "rectified_transform",
    "bcnpower_log_base",
    "bcnpower_base",
    "bcnpower_unbase",
    "bcnpower",
    "bcnpower_inverse",
]


def _finite_or_raise(out: NDArray, what: str, given: NDArray) -> NDArray[np.float64]:
    """``out``, unless a value is not finite where the data ``given`` were not missing (an
    infinite input is named as such; the checks run only when something is not finite, so
    the happy path costs one pass over ``out``)."""
    if np.all(np.isfinite(out)) or np.all(np.isfinite(out) | np.isnan(given)):
        return out
    if np.any(np.isinf(given)):
        raise BoxCoxError("the data have infinite values; remove them or mark them missing "
                          "(NaN)")
    raise TransformOverflowError(
        f"{what} overflows float64 at this lambda; fit with ymax= to bound the "
        "transformed values, or rescale the data"
    )


def _real(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """``values`` as a float array; anything that is not real numbers (text, datetimes,
    complex numbers, ragged lists) is refused by name, as in ``bcs.fit``."""
    arr = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if arr.dtype.kind in "iufb":
        return np.asarray(arr, dtype=np.float64)
    if arr.dtype.kind == "O":
        try:
            return np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            pass
    raise BoxCoxError(f"{name} must be real numbers, got an array of dtype {arr.dtype}")


def _powers(lmbda: ArrayLike) -> NDArray[np.float64]:
    """``lmbda`` as a float array of finite powers, else the package's error."""
    lam = _real(lmbda, "lmbda")
    if not np.all(np.isfinite(lam)):
        raise BoxCoxError(f"lmbda must be finite, got {lmbda!r:.80}")
    return lam


def _pair(values: NDArray, lmbda: ArrayLike) -> NDArray[np.float64]:
    """The powers, checked (:func:`_powers`) and broadcastable against the data ``values``."""
    lam = _powers(lmbda)
    try:
        np.broadcast_shapes(values.shape, lam.shape)
    except ValueError:
        raise BoxCoxError(f"lmbda of shape {lam.shape} does not broadcast against data of "
                          f"shape {values.shape}; give one power, or one per column (the "
                          "last axis)") from None
    return lam


def _data(values: ArrayLike, name: str) -> NDArray[np.float64]:
    """The data of a transform: real numbers, NaN for missing values (infinities are refused
    by :func:`_finite_or_raise`, after the arithmetic, at no cost on the happy path)."""
    return _real(values, name)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log x`` at ``lmbda = 0``).

    Parameters
    ----------
    x : array_like
        Strictly positive data; NaN marks a missing value and stays NaN (the package's NaN
        policy: NaN in, NaN out, for every transform and inverse in this module).
    lmbda : array_like
        Finite power(s); broadcast against ``x``.

    Returns
    -------
    ndarray
        The transformed values (NaN exactly where ``x`` is NaN).

    Raises
    ------
    BoxCoxError
        If any ``x <= 0`` or is infinite, ``lmbda`` is not finite, or
        (``TransformOverflowError``) a value overflows float64.

    Examples
    --------
    >>> from boxcoxstat.families import boxcox
    >>> boxcox([1.0, 2.0, 4.0], 0.5)
    array([0.        , 0.82842712, 2.        ])
    >>> boxcox([1.0, 2.0, 4.0], 0.0)
    array([0.        , 0.69314718, 1.38629436])
    """
    x = _data(x, "x")
    lmbda = _pair(x, lmbda)
    if np.any(x <= 0):
        raise BoxCoxError("Box-Cox requires strictly positive data; use yeojohnson instead")
    logx = np.log(x)
    with np.errstate(over="ignore", invalid="ignore"):
        out = logx * exprel(lmbda * logx)
    return _finite_or_raise(out, "the Box-Cox transform", x)


def boxcox_inverse(y: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Inverse Box-Cox transform ``(1 + lmbda*y)**(1/lmbda)`` (``exp(y)`` at 0).

    NaN in ``y`` stays NaN (a missing value).

    Raises
    ------
    BoxCoxError
        If ``1 + lmbda*y <= 0`` (no positive value transforms to ``y``), ``y`` is infinite
        or ``lmbda`` is not finite.

    Examples
    --------
    >>> from boxcoxstat.families import boxcox, boxcox_inverse
    >>> boxcox_inverse(boxcox([0.5, 3.0], -1.3), -1.3)
    array([0.5, 3. ])
    """
    y = _data(y, "y")
    lmbda = _pair(y, lmbda)
    with np.errstate(invalid="ignore", over="ignore"):  # 0 * inf, huge: checked below
        t = lmbda * y
    if np.any(t <= -1):
        raise BoxCoxError(
            "some values lie outside the range of the Box-Cox transform at this lambda "
            "(1 + lmbda*y <= 0), so they have no inverse"
        )
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below
        out = np.exp(y * log1prel(t))
    return _finite_or_raise(out, "the inverse Box-Cox transform", y)


def boxcox_logjac(x: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Log-Jacobian ``log |d psi / dx| = (lmbda - 1) log x`` of the Box-Cox transform."""
    x = np.asarray(x, dtype=np.float64)
    return (np.asarray(lmbda, dtype=np.float64) - 1.0) * np.log(x)


def _yj_parts(x: NDArray, lmbda: NDArray):
    pos = x >= 0
    u = np.log1p(np.abs(x))
    kappa = np.where(pos, lmbda, 2.0 - lmbda)
    sign = np.where(pos, 1.0, -1.0)
    return u, kappa, sign


def yeojohnson(x: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Yeo-Johnson transform.

    ``((1+x)**lmbda - 1)/lmbda`` for ``x >= 0`` and ``-((1-x)**(2-lmbda) - 1)/(2-lmbda)`` for
    ``x < 0``, with the logarithmic limits at ``lmbda = 0`` and ``lmbda = 2``. NaN in ``x``
    stays NaN (a missing value); infinite ``x`` and non-finite ``lmbda`` are refused.

    Examples
    --------
    >>> from boxcoxstat.families import yeojohnson
    >>> yeojohnson([-2.0, 0.0, 3.0], 1.0)
    array([-2.,  0.,  3.])
    >>> yeojohnson([-2.0, 0.0, 3.0], 0.0).round(4)
    array([-4.    ,  0.    ,  1.3863])
    """
    x = _data(x, "x")
    lmbda = _pair(x, lmbda)
    u, kappa, sign = _yj_parts(x, lmbda)
    with np.errstate(over="ignore", invalid="ignore"):
        out = sign * u * exprel(kappa * u)
    return _finite_or_raise(out, "the Yeo-Johnson transform", x)


def yeojohnson_inverse(y: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Inverse Yeo-Johnson transform (NaN in ``y`` stays NaN).

    Raises
    ------
    BoxCoxError
        If a value lies outside the transform's range at this lambda, ``y`` is infinite or
        ``lmbda`` is not finite.

    Examples
    --------
    >>> from boxcoxstat.families import yeojohnson, yeojohnson_inverse
    >>> yeojohnson_inverse(yeojohnson([-2.0, 0.5, 7.0], 2.7), 2.7)
    array([-2. ,  0.5,  7. ])
    """
    y = _data(y, "y")
    lmbda = _pair(y, lmbda)
    pos = y >= 0
    kappa = np.where(pos, lmbda, 2.0 - lmbda)
    sign = np.where(pos, 1.0, -1.0)
    with np.errstate(invalid="ignore", over="ignore"):  # 0 * inf, huge: checked below
        t = kappa * np.abs(y)
    if np.any(t <= -1):
        raise BoxCoxError(
            "some values lie outside the range of the Yeo-Johnson transform at this lambda, "
            "so they have no inverse"
        )
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below
        out = sign * np.expm1(np.abs(y) * log1prel(t))
    return _finite_or_raise(out, "the inverse Yeo-Johnson transform", y)


def yeojohnson_logjac(x: ArrayLike, lmbda: ArrayLike) -> NDArray[np.float64]:
    """Log-Jacobian ``(lmbda - 1) sign(x) log(1 + |x|)`` of the Yeo-Johnson transform."""
    x = np.asarray(x, dtype=np.float64)
    return (np.asarray(lmbda, dtype=np.float64) - 1.0) * np.sign(x) * np.log1p(np.abs(x))


_FORWARD = {"boxcox": boxcox, "yeojohnson": yeojohnson}
def bcnpower_log_base(x: ArrayLike, gamma: float) -> tuple[NDArray[np.float64],
                                                             NDArray[np.float64]]:
    """``log b`` and ``log s`` of the bcnPower base ``b = (x + s)/2``, ``s = sqrt(x^2 + gamma^2)``.

    Hawkins & Weisberg (2017) shift any real ``x`` to the positive ``b`` (``b -> x`` as
    ``gamma -> 0`` for ``x > 0``). For ``x < 0`` the sum ``x + s`` cancels, so ``b`` is formed
    as ``gamma^2 / (2 (s - x))``; ``s`` is ``hypot(x, gamma)``, so nothing overflows.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.families import bcnpower_log_base
    >>> log_b, log_s = bcnpower_log_base([-1e9, 0.0, 3.0], 2.0)
    >>> np.exp(log_b)  # 4 / (4e9), 1 (= gamma/2), (3 + sqrt(13))/2
    array([1.00000000e-09, 1.00000000e+00, 3.30277564e+00])
    """
    x = np.asarray(x, dtype=np.float64)
    g = float(gamma)
    # near float64's end, x and gamma are scaled by a power of two (exact) first
    top = max(float(np.max(np.abs(x), initial=0.0)), g)
    k = int(np.frexp(top)[1]) if top > 1e300 else 0
    xs = np.ldexp(x, -k)
    s = np.hypot(xs, np.ldexp(g, -k))
    shift = k * np.log(2.0)
    with np.errstate(divide="ignore"):
        log_s = np.log(s) + shift
        pos = np.log(0.5 * xs + 0.5 * s) + shift
        neg = 2.0 * np.log(g) - np.log(2.0 * (s - xs)) - shift
    return np.where(x >= 0, pos, neg), log_s


def bcnpower_base(x: ArrayLike, gamma: float) -> NDArray[np.float64]:
    """The positive base ``b = (x + sqrt(x^2 + gamma^2))/2`` of bcnPower (see
    :func:`bcnpower_log_base`); ``gamma`` must be > 0 unless every ``x > 0``."""
    x = _data(x, "x")
    if check_number("gamma", gamma) < 0:
        raise BoxCoxError(f"gamma must be >= 0, got {gamma!r}")
    if float(gamma) == 0:
        if np.any(x <= 0):
            raise BoxCoxError("bcnPower with gamma = 0 is Box-Cox and needs positive data")
        return x.copy()
    return shifted_base(x, float(gamma))


def shifted_base(x: NDArray[np.float64], gamma: float) -> NDArray[np.float64]:
    """:func:`bcnpower_base` of float data for a checked ``gamma > 0`` (the kernel under it,
    for callers below the gate: a fitted bcnPower's own shift); refuses a base that
    underflows to 0.

    Examples
    --------
    >>> import numpy as np
    >>> from boxcoxstat.families import shifted_base
    >>> shifted_base(np.array([-1e9, 0.0]), 2.0)
    array([1.e-09, 1.e+00])
    """
    out = np.exp(bcnpower_log_base(x, gamma)[0])
    if np.any(out == 0):
        raise BoxCoxError(f"gamma = {gamma!r} is too small for values as negative as "
                          f"{float(np.min(x))!r}: the shifted base underflows; use a larger "
                          "gamma")
    return out


def bcnpower_unbase(b: ArrayLike, gamma: float) -> NDArray[np.float64]:
    """Inverse of :func:`bcnpower_base`: ``x = b - gamma^2/(4 b)``, formed as
    ``(b - gamma/2)(b + gamma/2)/b`` so values near 0 keep their digits."""
    b = np.asarray(b, dtype=np.float64)
    h = 0.5 * float(gamma)
    with np.errstate(over="ignore", invalid="ignore"):  # beyond float64: inf, the caller's
        return (b - h) * ((b + h) / b)


def bcnpower(x: ArrayLike, lmbda: float, gamma: float) -> NDArray[np.float64]:
    """The bcnPower transform of Hawkins & Weisberg (2017): Box-Cox of the shifted base.

    ``psi(x) = (b^lmbda - 1)/lmbda`` with ``b = (x + sqrt(x^2 + gamma^2))/2`` (``log b`` at
    ``lmbda = 0``), defined for every real ``x`` when ``gamma > 0`` (car's ``bcnPower``).

    Examples
    --------
    >>> from boxcoxstat.families import bcnpower, bcnpower_inverse
    >>> y = bcnpower([-2.0, 0.0, 3.0], 0.6875, 0.67)
    >>> y.round(6)
    array([-1.257457, -0.768748,  1.667243])
    >>> bcnpower_inverse(y, 0.6875, 0.67).round(12)
    array([-2.,  0.,  3.])
    """
    return boxcox(bcnpower_base(x, gamma), lmbda)


def bcnpower_inverse(y: ArrayLike, lmbda: float, gamma: float) -> NDArray[np.float64]:
    """Inverse of :func:`bcnpower` (car's ``bcnPowerInverse``)."""
    return bcnpower_unbase(boxcox_inverse(y, lmbda), gamma)


_INVERSE = {"boxcox": boxcox_inverse, "yeojohnson": yeojohnson_inverse}
_LOGJAC = {"boxcox": boxcox_logjac, "yeojohnson": yeojohnson_logjac}


def transform(x: ArrayLike, lmbda: ArrayLike, family: str = "boxcox") -> NDArray[np.float64]:
    """Apply the ``family`` transform (``"boxcox"`` or ``"yeojohnson"``)."""
    return _FORWARD[normalize_family(family, allow_auto=False)](x, lmbda)


def inverse_transform(
    y: ArrayLike, lmbda: ArrayLike, family: str = "boxcox"
) -> NDArray[np.float64]:
    """Invert the ``family`` transform."""
    return _INVERSE[normalize_family(family, allow_auto=False)](y, lmbda)


def log_jacobian(x: ArrayLike, lmbda: ArrayLike, family: str = "boxcox") -> NDArray[np.float64]:
    """Elementwise ``log |d psi/dx|`` of the ``family`` transform."""
    return _LOGJAC[normalize_family(family, allow_auto=False)](x, lmbda)


def log_jacobian_unchecked(x: ArrayLike, lmbda: ArrayLike,
                           family: str) -> NDArray[np.float64]:
    """:func:`log_jacobian` for a canonical ``family`` (``"boxcox"`` or ``"yeojohnson"``),
    unchecked: the kernel for callers below the gate.

    Examples
    --------
    >>> from boxcoxstat.families import log_jacobian_unchecked
    >>> log_jacobian_unchecked([2.0, 4.0], 0.5, "boxcox").round(4)  # -log(x) / 2
    array([-0.3466, -0.6931])
    """
    return _LOGJAC[family](x, lmbda)


def log_abs_transform(
    x: ArrayLike, lmbda: ArrayLike, family: str = "boxcox"
) -> NDArray[np.float64]:
    """``log |psi(lmbda, x)|``, finite even where ``psi`` itself overflows float64.

    ``-inf`` where ``psi = 0`` (``x = 1`` for Box-Cox, ``x = 0`` for Yeo-Johnson).

    Examples
    --------
    >>> from boxcoxstat.families import log_abs_transform
    >>> float(log_abs_transform(10.0, 400.0).round(3))  # psi = 1e400/400 overflows float64
    915.043
    """
    return log_abs_unchecked(x, lmbda, normalize_family(family, allow_auto=False))


def log_abs_unchecked(x: ArrayLike, lmbda: ArrayLike, family: str) -> NDArray[np.float64]:
    """:func:`log_abs_transform` for a canonical ``family``, unchecked (the kernel for
    callers below the gate).

    Examples
    --------
    >>> from boxcoxstat.families import log_abs_unchecked
    >>> float(log_abs_unchecked(10.0, 400.0, "boxcox").round(3))
    915.043
    """
    x = np.asarray(x, dtype=np.float64)
    lmbda = np.asarray(lmbda, dtype=np.float64)
    if family == "boxcox":
        u = np.log(x)
        kappa = lmbda
    else:
        u, kappa, _ = _yj_parts(x, lmbda)
    with np.errstate(divide="ignore"):
        return np.log(np.abs(u)) + log_exprel(kappa * u)


# --------------------------------------------------------------------------- rectified
# Raymaekers & Rousseeuw (2021), section 2.2: the transform continued linearly (C^1) beyond a
# change point, so its range is the whole line and far outliers are not pulled inward. The
# helpers below do not raise on overflow (they return inf), because optimisers evaluate
# them at trial lambdas and must see a bad value rather than an exception.

def forward_unchecked(x: ArrayLike, lmbda: ArrayLike, family: str) -> NDArray[np.float64]:
    """The ``family`` transform without the overflow check (``inf`` where it overflows).

    Examples
    --------
    >>> from boxcoxstat.families import forward_unchecked
    >>> forward_unchecked([1.0, 4.0], 0.5, "boxcox")
    array([0., 2.])
    """
    x = np.asarray(x, dtype=np.float64)
    lmbda = np.asarray(lmbda, dtype=np.float64)
    if family == "boxcox":
        u = np.log(x)
        kappa, sign = lmbda, 1.0
    else:
        u, kappa, sign = _yj_parts(x, lmbda)
    with np.errstate(over="ignore", invalid="ignore"):
        return sign * u * exprel(kappa * u)


def inverse_unchecked(y: ArrayLike, lmbda: ArrayLike, family: str) -> NDArray[np.float64]:
    """Inverse transform without range checks (``nan`` outside the range, ``inf`` on overflow).

    Examples
    --------
    >>> from boxcoxstat.families import inverse_unchecked
    >>> inverse_unchecked([0.0, 2.0], 0.5, "boxcox")
    array([1., 4.])
    """
    y = np.asarray(y, dtype=np.float64)
    lmbda = np.asarray(lmbda, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if family == "boxcox":
            t = lmbda * y
            return np.where(t > -1, np.exp(y * log1prel(np.maximum(t, -1 + 1e-300))), np.nan)
        pos = y >= 0
        kappa = np.where(pos, lmbda, 2.0 - lmbda)
        sign = np.where(pos, 1.0, -1.0)
        t = kappa * np.abs(y)
        out = sign * np.expm1(np.abs(y) * log1prel(np.maximum(t, -1 + 1e-300)))
        return np.where(t > -1, out, np.nan)


def derivative(x: ArrayLike, lmbda: ArrayLike, family: str) -> NDArray[np.float64]:
    """``d psi / dx``: ``x**(lmbda-1)`` (Box-Cox), ``(1+|x|)**(sign(x)(lmbda-1))`` (YJ)."""
    with np.errstate(over="ignore"):
        return np.exp(log_jacobian(x, lmbda, family))


def rectified_transform(
    x: ArrayLike, lmbda: ArrayLike, cut: ArrayLike, family: str = "boxcox"
) -> NDArray[np.float64]:
    """Rectified Box-Cox or Yeo-Johnson transform (Raymaekers & Rousseeuw 2021, eq. 7-10).

    For ``lmbda < 1`` the transform is continued by its tangent line above the change point
    ``cut`` (the paper's ``C_u``), for ``lmbda > 1`` below it (``C_l``); at ``lmbda = 1`` it is
    linear already (``x - 1`` for Box-Cox, ``x`` for Yeo-Johnson). ``lmbda`` and ``cut``
    broadcast against ``x`` (e.g. shape ``(p,)`` against data of shape ``(n, p)``).

    Examples
    --------
    >>> from boxcoxstat.families import rectified_transform
    >>> rectified_transform([0.5, 1.0, 4.0, 9.0], 0.0, 4.0).round(4)  # log up to 4, then a line
    array([-0.6931,  0.    ,  1.3863,  2.6363])
    """
    return rectified_unchecked(x, lmbda, cut, normalize_family(family, allow_auto=False))


def rectified_unchecked(x: ArrayLike, lmbda: ArrayLike, cut: ArrayLike,
                        family: str) -> NDArray[np.float64]:
    """:func:`rectified_transform` for a canonical ``family``, unchecked (the kernel the
    robust estimators call at every trial lambda).

    Examples
    --------
    >>> from boxcoxstat.families import rectified_unchecked
    >>> rectified_unchecked([0.5, 9.0], 0.0, 4.0, "boxcox").round(4)
    array([-0.6931,  2.6363])
    """
    x = np.asarray(x, dtype=np.float64)
    lmbda = np.asarray(lmbda, dtype=np.float64)
    cut = np.asarray(cut, dtype=np.float64)
    plain = forward_unchecked(x, lmbda, family)
    with np.errstate(over="ignore"):
        slope = np.exp(_LOGJAC[family](cut, lmbda))
    line = forward_unchecked(cut, lmbda, family) + (x - cut) * slope
    linear = x - 1.0 if family == "boxcox" else x
    with np.errstate(invalid="ignore"):
        out = np.where((lmbda < 1) & (x > cut), line, plain)
        out = np.where((lmbda > 1) & (x < cut), line, out)
    return np.where(lmbda == 1, linear, out)
