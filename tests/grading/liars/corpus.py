# The lying-object corpus: injected, as source, at the top of a submission's first solution cell
# (tests/grading/liars/submissions.py). The instructor's solution is kept; every value it hands to code
# outside the solution cells is replaced by a liar whose real storage holds WRONG data (the right
# answer + 1) while every Python-level method it has (arithmetic, comparison, __array_ufunc__,
# __array_function__, __float__, __array__, __getitem__, tolist...) answers as if it held the
# right one. Only a reader that goes through the base types' own slots (grader.trusted) sees the
# wrong data. LIAR_MODE picks the family:
#   "subclass" — ndarray / float / dict / tuple / torch.Tensor subclasses, lying __getattribute__
#                on classes
#   "duck"     — objects that are not arrays or floats (lying __array__, __float__,
#                __array_priority__), dict subclasses whose __getitem__ lies, Value-like classes
#                whose data/grad are properties
#   "plain"    — the honest twin: the same wrong data in honest containers
# Values passed back into solution code (a cache, a params dict) are unwrapped to the real ones,
# so the solution keeps working and only what the tests read is wrong.
import functools as _functools

import numpy as _np

LIAR_MODE = "subclass"
_DEPTH = [0]  # > 0 while solution code runs: it sees real values


def _enter(fn, args, kwargs):
    if _DEPTH[0] > 0:
        return fn(*args, **kwargs)
    _DEPTH[0] += 1
    try:
        result = fn(*_unwrap(args), **_unwrap(kwargs))
    finally:
        _DEPTH[0] -= 1
    return _lie(result)


def _wrong(real):
    if isinstance(real, _np.ndarray):
        return ~real if real.dtype == bool else real + 1
    return real + 1.0


def _real_of(value):
    return value._real if isinstance(value, _SEEN) else value


def _unwrap(value):
    if isinstance(value, _SEEN):
        return value._real
    if type(value) is tuple:
        return tuple(_unwrap(v) for v in value)
    if type(value) is list:
        return [_unwrap(v) for v in value]
    if type(value) is dict:
        return {k: _unwrap(v) for k, v in value.items()}
    return value


class _Facade:
    """Every conversion and printout answers with the REAL value (self._real)."""

    def __array__(self, dtype=None, copy=None):
        return _np.asarray(self._real, dtype=dtype)

    def __float__(self):
        return float(self._real)

    def __int__(self):
        return int(self._real)

    def __bool__(self):
        return bool(self._real)

    def __abs__(self):
        return abs(self._real)

    def __neg__(self):
        return -self._real

    def __round__(self, *args):
        return round(self._real, *args)

    def __repr__(self):
        return repr(self._real)

    __str__ = __repr__

    def __format__(self, spec):
        return format(self._real, spec)


class _Sequence(_Facade):
    def __getitem__(self, index):
        return self._real[index]

    def __iter__(self):
        return iter(self._real)

    def __len__(self):
        return len(self._real)


def _delegating(name):
    def method(self, *args):
        return getattr(self._real, name)(*(_real_of(a) for a in args))

    method.__name__ = name
    return method


_NUMBER_OPS = [
    f"__{op}__"
    for base in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
    for op in (base, "r" + base)
] + ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]


class _LyingArray(_Sequence, _np.ndarray):
    """An ndarray subclass: numpy's ufuncs and functions, and every method, see the REAL data."""

    __array_priority__ = 1e6

    def __array_finalize__(self, obj):
        self._real = getattr(obj, "_real", None)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(_real_of(v) for v in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(_real_of(v) for v in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*_unwrap(args), **_unwrap(kwargs))

    def tolist(self):
        return self._real.tolist()

    def item(self, *args):
        return self._real.item(*args)

    def copy(self, *args, **kwargs):
        return _lie(self._real.copy())

    def astype(self, *args, **kwargs):
        return _lie(self._real.astype(*args, **kwargs))

    def reshape(self, *args, **kwargs):
        return _lie(self._real.reshape(*args, **kwargs))

    @property
    def T(self):
        return _lie(self._real.T)


class _LyingFloat(_Facade, float):
    def __hash__(self):
        return hash(self._real)


for _name in _NUMBER_OPS:
    if _name not in ("__matmul__", "__rmatmul__"):
        setattr(_LyingFloat, _name, _delegating(_name))


class _DuckArray(_Sequence):
    """Not an ndarray: numpy defers to it (__array_ufunc__ = None), __array__ gives the REAL data."""

    __array_priority__ = 1e6
    __array_ufunc__ = None
    __hash__ = None

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        if name == "_real":
            raise AttributeError(name)
        return getattr(self._real, name)


for _name in _NUMBER_OPS:
    setattr(_DuckArray, _name, _delegating(_name))


class _DuckFloat(_DuckArray):
    """Not a float: __float__ gives the REAL value."""

    def __hash__(self):
        return hash(self._real)

    def __index__(self):
        raise TypeError("not an integer")


class _LyingTuple(tuple):
    """Storage: liars. Unpacking, indexing, iterating: the REAL items (the right answers)."""

    def __getitem__(self, index):
        return self._real[index]

    def __iter__(self):
        return iter(self._real)


class _TwinArray(_np.ndarray):
    """Honest: holds the wrong data and says so."""

    def __array_finalize__(self, obj):
        self._real = getattr(obj, "_real", None)


class _TwinFloat(float):
    pass


class _LieDict(dict):
    """Storage: the wrong values. __getitem__ and friends: liars (or honest, for the twin)."""

    def __init__(self, real):
        super().__init__({k: _lie(v) for k, v in real.items()})
        self._real = real

    def __setitem__(self, key, value):
        self._real[key] = _unwrap(value)
        super().__setitem__(key, _lie(_unwrap(value)))

    def __delitem__(self, key):
        del self._real[key]
        super().__delitem__(key)


class _LyingDict(_LieDict):
    def __getitem__(self, key):
        return _believable(self._real[key])

    def get(self, key, default=None):
        return _believable(self._real[key]) if key in self._real else default

    def items(self):
        return [(k, _believable(v)) for k, v in self._real.items()]

    def values(self):
        return [_believable(v) for v in self._real.values()]

    def __eq__(self, other):
        return self._real == _unwrap(other)

    __hash__ = None


def _believable(real):
    """A liar for the real value whose every method answers like the real one."""
    return _lie(real)


_SEEN = (_LyingArray, _LyingFloat, _DuckArray, _TwinArray, _TwinFloat, _LieDict, _LyingTuple)


def _new_array(cls, real):
    liar = _np.array(_wrong(real)).view(cls)
    liar._real = real
    return liar


def _new_float(cls, real):
    liar = cls(_wrong(float(real)))
    liar._real = float(real)
    return liar


def _lie_tensor(real):
    if LIAR_MODE != "subclass":
        return (real + 1) if real.is_floating_point() else real
    liar = (real + 1).as_subclass(_LyingTensor())
    liar._real = real
    return liar


@_functools.cache
def _LyingTensor():
    import torch

    class LyingTensor(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            def real(v):
                return v.__dict__.get("_real", v) if isinstance(v, LyingTensor) else v

            args = tuple(real(a) for a in args)
            kwargs = {k: real(v) for k, v in (kwargs or {}).items()}
            with torch._C.DisableTorchFunctionSubclass():
                return func(*args, **kwargs)

    return LyingTensor


def _lie(value):
    kind = type(value)
    if isinstance(value, _SEEN) or kind in (bool, int, str) or value is None:
        return value
    if kind is _np.ndarray and value.dtype.kind in "biuf":
        cls = {"subclass": _LyingArray, "duck": None, "plain": _TwinArray}[LIAR_MODE]
        if cls is None:
            duck = _DuckArray(value)
            return duck
        return _new_array(cls, value)
    if kind is float or (isinstance(value, _np.floating) and value.ndim == 0):
        if LIAR_MODE == "duck":
            return _DuckFloat(float(value))
        return _new_float(_LyingFloat if LIAR_MODE == "subclass" else _TwinFloat, value)
    if kind is tuple:
        items = tuple(_lie(v) for v in value)
        if LIAR_MODE != "subclass":
            return items
        liar = _LyingTuple(items)
        liar._real = value
        return liar
    if kind is list:
        return [_lie(v) for v in value]
    if kind is dict:
        return (_LieDict if LIAR_MODE == "plain" else _LyingDict)(value)
    if kind.__module__.startswith("torch") and kind.__name__ == "Tensor":
        return _lie_tensor(value)
    return value


def _lying_class(cls):
    """A subclass of a solution class whose instances lie to code outside the solution."""
    namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
    for klass in cls.__mro__:
        if klass.__module__ != cls.__module__:
            continue
        for name, member in klass.__dict__.items():
            if name in namespace or name in ("__getattribute__", "__getattr__", "__setattr__", "__new__"):
                continue
            if isinstance(member, staticmethod | classmethod):
                inner = member.__func__
                kind = type(member)
                namespace[name] = kind(_functools.wraps(inner)(
                    lambda *a, _f=inner, **k: _enter(_f, a, k)))
            elif callable(member) and not isinstance(member, type):
                namespace[name] = _functools.wraps(member)(
                    lambda self, *a, _f=member, **k: _enter(_f, (self, *a), k))

    def __getattribute__(self, name):
        value = object.__getattribute__(self, name)
        if _DEPTH[0] > 0 or name.startswith("__"):
            return value
        return _lie(value)

    namespace["__getattribute__"] = __getattribute__
    if LIAR_MODE == "duck":
        namespace["data"], namespace["grad"] = _DATA_PROPERTY, _GRAD_PROPERTY
    liar = type(cls.__name__, (cls,), namespace)
    _apply_torch_function(cls, liar)
    return liar


def _get_data(self):
    return self._real_data if _DEPTH[0] > 0 else _lie(self._real_data)


def _set_data(self, value):
    self._real_data = _unwrap(value)


def _get_grad(self):
    return self._real_grad if _DEPTH[0] > 0 else _lie(self._real_grad)


def _set_grad(self, value):
    self._real_grad = _unwrap(value)


_DATA_PROPERTY = property(_get_data, _set_data)
_GRAD_PROPERTY = property(_get_grad, _set_grad)


def _apply_torch_function(cls, liar):
    """A torch.autograd.Function: its apply lies about what it returns."""
    apply = getattr(cls, "apply", None)
    if apply is None or not hasattr(cls, "forward") or not hasattr(cls, "backward"):
        return
    liar.apply = staticmethod(lambda *a, **k: _lie(apply(*_unwrap(a), **_unwrap(k))))


def liar_seal(namespace, names):
    """After a solution cell ran: wrap what it defined so that it lies to everybody else."""
    for name in names:
        if name not in namespace:
            continue
        value = namespace[name]
        if isinstance(value, type):
            namespace[name] = _lying_class(value)
        elif callable(value):
            namespace[name] = _functools.wraps(value)(lambda *a, _f=value, **k: _enter(_f, a, k))
        else:
            namespace[name] = _lie(value)
