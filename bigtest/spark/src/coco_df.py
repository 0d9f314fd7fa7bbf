# --- coco_df: what each df operation means, for the UDFs below -------------
# The same rules as coco's interpreter (bigtest/dataflow/src/host.rs and
# value.rs): arith ops are MLIR's (i64 wraps, divsi truncates), the string
# and number ops are the host language's (HOST: "jvm" is Java/Scala, "python"
# is Python itself). A UDF that fails raises UdfFailure, which fails the
# Spark task and so the job, as the same exception would in a Scala job.
import csv
import decimal
import math
import re
import struct


class UdfFailure(Exception):
    """The job's code throws here (a bad parse, an index past the end)."""


class ModelError(Exception):
    """A value the df model cannot hold (Python parses beyond i64)."""


I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def wrap(x):
    return ((x + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _is_bool(x):
    return isinstance(x, bool)


def addi(a, b):
    return a ^ b if _is_bool(a) else wrap(a + b)


def subi(a, b):
    return a ^ b if _is_bool(a) else wrap(a - b)


def muli(a, b):
    return (a and b) if _is_bool(a) else wrap(a * b)


def divsi(a, b):
    if b == 0:
        raise UdfFailure("division by zero")
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q)


def remsi(a, b):
    if b == 0:
        raise UdfFailure("remainder by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _zero_divisor(op):
    if HOST == "jvm":
        return UdfFailure("ArithmeticException: / by zero")
    if op == "mod":
        return UdfFailure("ZeroDivisionError: integer modulo by zero")
    return UdfFailure("ZeroDivisionError: integer division or modulo by zero")


def floordiv(a, b):
    # Python's // (Java's Math.floorDiv), wrapping in i64 as divsi does.
    if b == 0:
        raise _zero_divisor("floordiv")
    return wrap(a // b)


def mod(a, b):
    # Python's % (Java's Math.floorMod): the sign of the divisor.
    if b == 0:
        raise _zero_divisor("mod")
    return a % b


def truediv(a, b):
    # Python's / on floats (df.host = "python" only).
    if b == 0.0:
        raise UdfFailure("ZeroDivisionError: float division by zero")
    return a / b


def andi(a, b):
    return (a and b) if _is_bool(a) else a & b


def ori(a, b):
    return (a or b) if _is_bool(a) else a | b


def xori(a, b):
    return a ^ b


def maxi(a, b):
    return (a or b) if _is_bool(a) else max(a, b)


def mini(a, b):
    return (a and b) if _is_bool(a) else min(a, b)


def cmpi(pred, a, b):
    if _is_bool(a) and pred not in ("eq", "ne"):
        # i1 compares as a signed integer: true is -1.
        a, b = -int(a), -int(b)
    return _compare(pred, a, b)


def cmpf(pred, a, b):
    # arith.cmpf's ordered predicates: `one` is false when a side is NaN.
    if pred == "ne":
        return a < b or a > b
    return _compare(pred, a, b)


def _compare(pred, a, b):
    if pred == "eq":
        return a == b
    if pred == "ne":
        return a != b
    if pred == "lt":
        return a < b
    if pred == "le":
        return a <= b
    if pred == "gt":
        return a > b
    return a >= b


def divf(a, b):
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def maxf(a, b):
    # Rust's f64::max: a NaN operand gives the other one.
    if a != a:
        return b
    if b != b:
        return a
    return a if a > b else b


def minf(a, b):
    if a != a:
        return b
    if b != b:
        return a
    return a if a < b else b


def fptosi(a):
    # Rust's `as i64` (and Java's (long) cast): saturating, NaN is 0.
    if a != a:
        return 0
    if a >= 9.223372036854775807e18:
        return I64_MAX
    if a <= -9.223372036854775808e18:
        return I64_MIN
    return int(a)


def get(items, index):
    if index >= len(items):
        raise UdfFailure(
            "index %d is past the end of a list of %d" % (index, len(items))
        )
    return items[index]


def get_or_none(items, index):
    # try: items[index] except IndexError: an option, () or (v,).
    return (items[index],) if index < len(items) else ()


def get_at_or_none(items, index):
    # df.get_at: a negative index is absent, not counted from the end.
    return (items[index],) if 0 <= index < len(items) else ()


def value_or(option, default):
    return option[0] if option else default


# The zero of every run of ten Unicode decimal digits (Unicode 14), as in
# host.rs; the JVM reads only those of the Basic Multilingual Plane.
_DIGIT_ZEROS = (
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66,
    0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810,
    0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620,
    0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30,
    0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60,
    0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140,
    0x1E2F0, 0x1E950, 0x1FBF0,
)


def _bmp_digit(c):
    cp = ord(c)
    if cp >= 0x10000:
        return None
    for zero in _DIGIT_ZEROS:
        if zero <= cp < zero + 10:
            return cp - zero
    return None


def _jvm_parse_long(text):
    """Long.parseLong: None where it throws."""
    negative = text[:1] == "-"
    digits = text[1:] if text[:1] in ("-", "+") else text
    if not digits:
        return None
    value = 0
    for c in digits:
        d = _bmp_digit(c)
        if d is None:
            return None
        value = value * 10 + d
        if value > (1 << 63):
            return None
    value = -value if negative else value
    return value if I64_MIN <= value <= I64_MAX else None


def to_int(text, int32):
    if HOST == "jvm":
        value = _jvm_parse_long(text)
        if value is None:
            raise UdfFailure('"%s" is not an integer' % text)
    else:
        try:
            value = int(text)
        except ValueError:
            raise UdfFailure('"%s" is not an integer' % text)
        if not I64_MIN <= value <= I64_MAX:
            raise ModelError('"%s" parses to an integer beyond i64' % text)
    if int32 and not -(1 << 31) <= value < (1 << 31):
        raise UdfFailure('"%s" is not a 32-bit integer' % text)
    return value


def to_int_or_none(text, int32):
    # try: int(text) except ValueError: () where the parse fails.
    try:
        return (to_int(text, int32),)
    except UdfFailure:
        return ()


_JVM_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _jvm_parse_double(text):
    """Double.parseDouble (decimal forms): None where it throws."""
    body = text.strip("".join(chr(c) for c in range(0x21)))
    sign = -1.0 if body[:1] == "-" else 1.0
    rest = body[1:] if body[:1] in ("-", "+") else body
    if rest == "NaN":
        return math.nan
    if rest == "Infinity":
        return sign * math.inf
    if rest[-1:] in ("f", "F", "d", "D"):
        rest = rest[:-1]
    if not _JVM_DECIMAL.match(rest):
        return None
    return sign * float(rest)


def to_float(text):
    if HOST == "jvm":
        value = _jvm_parse_double(text)
    else:
        try:
            value = float(text)
        except ValueError:
            value = None
    if value is None:
        raise UdfFailure('"%s" is not a number' % text)
    return value


def sql_round(value, scale, half_even):
    # Spark rounds the shortest decimal text of the double (Java's
    # Double.toString), as Python's repr writes it.
    if math.isnan(value) or math.isinf(value):
        return value
    mode = decimal.ROUND_HALF_EVEN if half_even else decimal.ROUND_HALF_UP
    exact = decimal.Decimal(repr(value))
    context = decimal.Context(prec=1000)
    return float(exact.quantize(decimal.Decimal(1).scaleb(-scale), rounding=mode, context=context)) + 0.0


def to_float_or_none(text):
    try:
        return (to_float(text),)
    except UdfFailure:
        return ()


# Spark SQL's CAST(string AS type) with ANSI off (df.sql_cast; sql.rs):
# () where Spark gives NULL.
_SQL_TRIMMED = "".join(chr(c) for c in range(0x21)) + "\x7f"
_SQL_INTEGER = re.compile(r"([+-]?)([0-9]*)(?:\.[0-9]*)?\Z")
_SQL_RANGES = {"int": (-(1 << 31), (1 << 31) - 1), "bigint": (I64_MIN, I64_MAX)}
_SQL_TRUE = ("t", "true", "y", "yes", "1")
_SQL_FALSE = ("f", "false", "n", "no", "0")


def sql_cast_or_none(text, target):
    body = text.strip(_SQL_TRIMMED)
    if target in _SQL_RANGES:
        m = _SQL_INTEGER.match(body)
        if m is None or body in ("", "+", "-"):
            return ()
        value = int(m.group(2) or "0")
        value = -value if m.group(1) == "-" else value
        low, high = _SQL_RANGES[target]
        return (value,) if low <= value <= high else ()
    if target == "double":
        value = _jvm_parse_double(text)
        if value is None:
            value = {
                "inf": math.inf, "+inf": math.inf, "infinity": math.inf,
                "+infinity": math.inf, "-inf": -math.inf,
                "-infinity": -math.inf, "nan": math.nan,
            }.get(text.strip("".join(chr(c) for c in range(0x21))).lower())
        return () if value is None else (value,)
    word = body.lower()
    if word in _SQL_TRUE:
        return (True,)
    if word in _SQL_FALSE:
        return (False,)
    return ()


def csv_row(text):
    # The row csv.reader reads from one line; the empty line is [].
    return tuple(next(csv.reader([text]), ()))


def split(text, delimiter):
    pieces = text.split(delimiter)
    if HOST == "jvm" and len(pieces) > 1:
        # String.split with limit 0 drops trailing empty strings.
        while pieces and pieces[-1] == "":
            pieces.pop()
    return tuple(pieces)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def substr(text, start, length):
    if HOST == "python":
        return text[start:start + length]
    units = text.encode("utf-16-le", "surrogatepass")
    end = start + length
    if start < 0 or length < 0 or end > len(units) // 2:
        raise UdfFailure(
            'substring [%d, %d + %d) is outside "%s"' % (start, start, length, text)
        )
    piece = units[2 * start:2 * end].decode("utf-16-le", "surrogatepass")
    # A lone surrogate is written as "?" by Java's UTF-8 encoder.
    return _LONE_SURROGATE.sub("?", piece)


def length(text):
    if HOST == "python":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def find(text, sub):
    # str.find in code points; String.indexOf in UTF-16 units on the JVM.
    index = text.find(sub)
    if index < 0 or HOST == "python":
        return index
    return length(text[:index])


def replace(text, old, new):
    if old == "":
        raise ModelError("df.replace of an empty string is not modelled")
    return text.replace(old, new)


def _shortest(x):
    """The shortest digits that read back to x > 0, and the decimal exponent
    of the first one."""
    text = repr(x)
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    exp10 = int(exponent or "0") - len(fraction)
    while len(digits) > 1 and digits.endswith("0"):
        digits = digits[:-1]
        exp10 += 1
    return digits, exp10 + len(digits) - 1


def _format_float(x):
    if x != x:
        return "NaN" if HOST == "jvm" else "nan"
    if x in (math.inf, -math.inf):
        text = "Infinity" if HOST == "jvm" else "inf"
        return "-" + text if x < 0 else text
    if HOST == "python":
        return repr(x)
    sign = "-" if math.copysign(1.0, x) < 0 else ""
    if x == 0.0:
        return sign + "0.0"
    digits, exponent = _shortest(abs(x))
    if -3 <= exponent < 7:
        point = exponent + 1
        if point <= 0:
            text = "0." + "0" * -point + digits
        elif point >= len(digits):
            text = digits + "0" * (point - len(digits)) + ".0"
        else:
            text = digits[:point] + "." + digits[point:]
        return sign + text
    return "%s%s.%sE%d" % (sign, digits[0], digits[1:] or "0", exponent)


def to_str(value):
    if isinstance(value, bool):
        if HOST == "jvm":
            return "true" if value else "false"
        return "True" if value else "False"
    if isinstance(value, float):
        return _format_float(value)
    return str(value)


# --- records ----------------------------------------------------------------
# A record is a tuple of fields; a list is a tuple; an option is () or (v,).


class BadRecord(Exception):
    """A source line that does not hold a record of the source's type."""


def _parse_field(kind, text):
    if kind in ("i64", "i32"):
        value = _jvm_parse_long(text) if HOST == "jvm" else _python_int(text)
        if kind == "i32" and value is not None and not -(1 << 31) <= value < (1 << 31):
            return None
        return value
    if kind == "f64":
        if HOST == "jvm":
            return _jvm_parse_double(text)
        try:
            return float(text)
        except ValueError:
            return None
    if kind == "i1":
        return {"true": True, "false": False}.get(text)
    if kind == "str":
        return text
    return None


def _python_int(text):
    try:
        value = int(text)
    except ValueError:
        return None
    return value if I64_MIN <= value <= I64_MAX else None


def parse_record(source, line, delimiter, kinds):
    parts = [line] if len(kinds) == 1 else line.split(delimiter)
    if len(parts) != len(kinds):
        raise BadRecord(
            'source "%s" record "%s" has %d fields separated by "%s", the record type has %d'
            % (source, line, len(parts), delimiter, len(kinds))
        )
    fields = []
    for i, (part, kind) in enumerate(zip(parts, kinds)):
        value = _parse_field(kind, part)
        if value is None:
            raise BadRecord(
                'source "%s" record "%s" has field #%d "%s", which is not a valid %s'
                % (source, line, i, part, kind)
            )
        fields.append(value)
    return tuple(fields)


def _rust_float(x):
    # Rust's `{:?}` of an f64, coco's text for floats in sink output.
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    text = repr(x)
    mantissa, e, exponent = text.partition("e")
    return mantissa + "e" + str(int(exponent)) if e else text


def format_value(kind, value):
    if isinstance(kind, tuple):
        if kind[0] == "list":
            return "[" + ";".join(format_value(kind[1], v) for v in value) + "]"
        return "Some(%s)" % format_value(kind[1], value[0]) if value else "None"
    if kind == "f64":
        return _rust_float(value)
    if kind == "i1":
        return "true" if value else "false"
    return str(value)


def format_record(kinds, record):
    return ",".join(format_value(k, v) for k, v in zip(kinds, record))


class FloatKey:
    """A float as a key: equal by bits, as a JVM Double key is (0.0 and -0.0
    apart, NaN equal to itself), and as coco's interpreter keys floats."""

    __slots__ = ("bits",)

    def __init__(self, x):
        self.bits = struct.unpack("<q", struct.pack("<d", x))[0]

    def __eq__(self, other):
        return isinstance(other, FloatKey) and self.bits == other.bits

    def __hash__(self):
        return hash(self.bits)

    def __reduce__(self):
        return (_float_key_from_bits, (self.bits,))


def _float_key_from_bits(bits):
    key = FloatKey(0.0)
    key.bits = bits
    return key


def key_of(value):
    """A value made a key (only called where its type holds a float)."""
    if isinstance(value, float):
        return FloatKey(value)
    if isinstance(value, tuple):
        return tuple(key_of(v) for v in value)
    return value


# --- operators ----------------------------------------------------------------


def source_lines(sc, inputs, name, inline):
    if name in inputs:
        return sc.textFile(inputs[name])
    if inline is not None:
        return sc.parallelize(inline)
    raise SystemExit('no data for source "%s": pass --data DIR or --input %s=PATH' % (name, name))


def read_source(sc, inputs, name, inline, delimiter, kinds):
    lines = source_lines(sc, inputs, name, inline)
    return lines.map(lambda line: parse_record(name, line, delimiter, kinds))


def sort_key(value):
    """Orders the values of a group as coco does (Value::total_cmp): floats
    by IEEE totalOrder, strings by code point, None before Some."""
    if isinstance(value, float):
        bits = struct.unpack("<q", struct.pack("<d", value))[0]
        return bits ^ 0x7FFFFFFFFFFFFFFF if bits < 0 else bits
    if isinstance(value, tuple):
        return (len(value) and 1, tuple(sort_key(v) for v in value))
    return value


def grouped(records):
    """A group_by_key record: the key and the values in coco's order (Spark
    gives them in the order its partitions arrive)."""
    records = list(records)
    values = sorted((r[1] for r in records), key=sort_key)
    return (records[0][0], tuple(values))


def _side(record, wraps, keys):
    if record is None:
        return tuple(() for _ in wraps)
    return tuple((v,) if wrap_it else v for v, wrap_it in zip(record[keys:], wraps))


def joined(pair, left_wraps, right_wraps, keys=1):
    """A join's output record: the key fields (the first `keys`), then
    each side's values, wrapped as options where `wraps` says."""
    left, right = pair
    key = left[:keys] if left is not None else right[:keys]
    return tuple(key) + _side(left, left_wraps, keys) + _side(right, right_wraps, keys)
