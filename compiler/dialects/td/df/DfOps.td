//===- DfOps.td - df operations -----------------------------*- tablegen -*-===//
//
// Structure only. UDF signatures, record types and source formats are checked
// in Rust (dialects/src/df/verify.rs) by `coco-verify`.
//
//===----------------------------------------------------------------------===//

#ifndef DF_OPS
#define DF_OPS

include "DfDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Df_StripSide : I32EnumAttr<"StripSide", "which ends of a string df.strip strips", [
      I32EnumAttrCase<"both", 0>,
      I32EnumAttrCase<"left", 1>,
      I32EnumAttrCase<"right", 2>
    ]> {
  let cppNamespace = "::mlir::df";
}

def Df_SqlCastTarget : I32EnumAttr<"SqlCastTarget", "the SQL type df.sql_cast casts a string to", [
      I32EnumAttrCase<"Int", 0, "int">,
      I32EnumAttrCase<"BigInt", 1, "bigint">,
      I32EnumAttrCase<"Double", 2, "double">,
      I32EnumAttrCase<"Boolean", 3, "boolean">
    ]> {
  let cppNamespace = "::mlir::df";
}

def Df_JoinKind : I32EnumAttr<"JoinKind", "kind of join", [
      I32EnumAttrCase<"inner", 0>,
      I32EnumAttrCase<"left_outer", 1>,
      I32EnumAttrCase<"right_outer", 2>,
      I32EnumAttrCase<"full_outer", 3>
    ]> {
  let cppNamespace = "::mlir::df";
}

//===----------------------------------------------------------------------===//
// Dataset operators
//===----------------------------------------------------------------------===//

def Df_SourceOp : Df_Op<"source"> {
  let summary = "Records read from a delimited text file or given inline";
  let description = [{
    Each line is one record; its fields are separated by `delimiter` and
    parsed according to the record type. Exactly one of `path` (relative to the
    program file) and `inline` is given. `name` identifies the source in
    generated test data.

    `int32` lists the `i64` fields (by position from 0) that hold a
    32-bit integer, as a DataFrame's `INT` column does: a value beyond
    [-2^31, 2^31 - 1] there is not a record, and generated data stays
    within it. `float32` lists the `f64` fields that hold a 32-bit float,
    as a DataFrame's `FLOAT` column does: a value read there is the
    nearest 32-bit float (Java's `Float.parseFloat`), and generated data
    holds values a 32-bit float holds exactly (quarters below 2^20).

    ```mlir
    %orders = df.source "orders" path "orders.csv" delimiter "," : !df.dataset<tuple<i64, !df.str, f64>>
    %lines = df.source "lines" inline ["a b", "b c"] delimiter "\t" : !df.dataset<!df.str>
    %units = df.source "units" inline ["a,3"] delimiter "," int32 [1] : !df.dataset<tuple<!df.str, i64>>
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<StrAttr>:$path,
                       OptionalAttr<StrArrayAttr>:$records, StrAttr:$delimiter,
                       OptionalAttr<DenseI64ArrayAttr>:$int32,
                       OptionalAttr<DenseI64ArrayAttr>:$float32);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = [{
    $name (`path` $path^)? (`inline` $records^)? `delimiter` $delimiter (`int32` $int32^)? (`float32` $float32^)? attr-dict `:` type($result)
  }];
}

class Df_UdfOp<string mnemonic, string summaryText, string descriptionText>
    : Df_Op<mnemonic, [Pure]> {
  let summary = summaryText;
  let description = descriptionText;
  let arguments = (ins Df_AnyDataset:$input, FlatSymbolRefAttr:$udf);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input $udf attr-dict `:` type($input) `->` type($result)";
}

def Df_MapOp : Df_UdfOp<"map", "Apply a UDF to every record", [{
    UDF signature: input record fields → output record fields.

    ```mlir
    %m = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
    ```
  }]>;

def Df_FlatMapOp : Df_UdfOp<"flat_map", "Apply a UDF that returns a list, and flatten", [{
    UDF signature: input record fields → `!df.list<R>` where `R` is the output
    record type: each element is one record. A UDF may also return fields
    before the list, `(F1, ..., Fn, !df.list<E>)` for records
    `tuple<F1, ..., Fn, E>`: each element becomes a record that repeats the
    fields (PySpark's `flatMapValues` keeps the key this way).

    ```mlir
    %w = df.flat_map %lines @tokens : !df.dataset<!df.str> -> !df.dataset<!df.str>
    %t = df.flat_map %tagged @tags : !df.dataset<tuple<i64, !df.str>> -> !df.dataset<tuple<i64, !df.str>>
    ```
  }]>;

def Df_FilterOp : Df_Op<"filter", [Pure, SameOperandsAndResultType]> {
  let summary = "Keep the records for which a UDF returns true";
  let description = [{
    UDF signature: record fields → `i1`. The result has the input's type.

    ```mlir
    %f = df.filter %m @is_large : !df.dataset<tuple<!df.str, i64>>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$input, FlatSymbolRefAttr:$udf);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input $udf attr-dict `:` type($input)";
}

def Df_ReduceOp : Df_Op<"reduce", [Pure, SameOperandsAndResultType]> {
  let summary = "Fold all records into one with an associative UDF";
  let description = [{
    UDF signature: `(R fields, R fields) → R fields`. The result is a dataset
    of one record (none when the input is empty).

    ```mlir
    %t = df.reduce %amounts @add : !df.dataset<i64>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$input, FlatSymbolRefAttr:$udf);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input $udf attr-dict `:` type($input)";
}

def Df_ReduceByKeyOp : Df_Op<"reduce_by_key", [Pure, SameOperandsAndResultType]> {
  let summary = "Fold the values of each key with an associative UDF";
  let description = [{
    The input holds key-value records `tuple<K, V>`; UDF signature
    `(V, V) → V`. One record per distinct key. The value may be several
    fields, everything after the key: records `tuple<K, A, B>` fold with
    `(A, B, A, B) → (A, B)` (PySpark's `reduceByKey` over `(k, (a, b))`).

    With `keys N` the key is the first N fields (a DataFrame's
    `groupBy("day", "country")`): records `tuple<K1, K2, V>` with `keys 2`
    fold `(V, V) → V` per distinct pair of K1 and K2.

    ```mlir
    %c = df.reduce_by_key %pairs @add : !df.dataset<tuple<!df.str, i64>>
    %s = df.reduce_by_key %sums @add_pairs : !df.dataset<tuple<!df.str, i64, f64>>
    %d = df.reduce_by_key %days @add keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$input, FlatSymbolRefAttr:$udf,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$keys);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input $udf (`keys` $keys^)? attr-dict `:` type($input)";
}

def Df_GroupByKeyOp : Df_Op<"group_by_key", [Pure]> {
  let summary = "Collect the values of each key into a list";
  let description = [{
    `tuple<K, V>` → `tuple<K, !df.list<V>>`. The list holds the key's values
    in ascending order (numbers by value, floats by IEEE totalOrder, strings
    by code point, `None` first): Spark's `groupByKey` gives them in the
    order its partitions arrive, which no test can predict, so coco fixes
    one and exported jobs sort to it.

    ```mlir
    %g = df.group_by_key %pairs : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, !df.list<i64>>>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$input);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Df_JoinOp : Df_Op<"join", [Pure]> {
  let summary = "Join two keyed datasets on their first field (or first N fields)";
  let description = [{
    Left records `tuple<K, A...>` and right records `tuple<K, B...>` with the
    same key type `K` give `tuple<K, A..., B...>`. In a `left_outer` join the
    right fields are `!df.option<B>` (absent when the key is only on the left);
    `right_outer` wraps the left fields the same way, and `full_outer` wraps
    both sides (a key on one side only gives the other side's fields absent).

    With `keys N` the key is the first N fields of each side, of the same
    types (a DataFrame join on several columns): `tuple<K1, K2, A...>` and
    `tuple<K1, K2, B...>` give `tuple<K1, K2, A..., B...>`.

    ```mlir
    %j = df.join inner %users, %orders : !df.dataset<tuple<i64, !df.str>>, !df.dataset<tuple<i64, f64>> -> !df.dataset<tuple<i64, !df.str, f64>>
    %d = df.join inner %sales, %rates keys 2 : !df.dataset<tuple<!df.str, !df.str, i64>>, !df.dataset<tuple<!df.str, !df.str, f64>> -> !df.dataset<tuple<!df.str, !df.str, i64, f64>>
    ```
  }];
  let arguments = (ins Df_JoinKind:$kind, Df_AnyDataset:$left, Df_AnyDataset:$right,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$keys);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = [{
    $kind $left `,` $right (`keys` $keys^)? attr-dict `:` type($left) `,` type($right) `->` type($result)
  }];
}

def Df_UnionOp : Df_Op<"union", [Pure, SameOperandsAndResultType]> {
  let summary = "All records of both datasets (duplicates kept)";
  let description = [{
    ```mlir
    %u = df.union %a, %b : !df.dataset<i64>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$lhs, Df_AnyDataset:$rhs);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Df_DistinctOp : Df_Op<"distinct", [Pure, SameOperandsAndResultType]> {
  let summary = "Remove duplicate records";
  let description = [{
    ```mlir
    %d = df.distinct %a : !df.dataset<i64>
    ```
  }];
  let arguments = (ins Df_AnyDataset:$input);
  let results = (outs Df_AnyDataset:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Df_SinkOp : Df_Op<"sink"> {
  let summary = "A program output: collect the dataset, optionally into a file";
  let description = [{
    ```mlir
    df.sink "totals" %t path "totals.csv" : !df.dataset<tuple<!df.str, i64>>
    ```

    The base name of `path`, or the name where there is no path, is the
    folder that the exported PySpark job (`coco-translate --emit=pyspark`)
    saves the records in under its `--output`: it must be a plain file name
    (not empty, `.` or `..`, and without `/` or `\`), and no two sinks of a
    program may share it.
  }];
  let arguments = (ins StrAttr:$name, Df_AnyDataset:$input, OptionalAttr<StrAttr>:$path);
  let assemblyFormat = "$name $input (`path` $path^)? attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Values inside UDFs
//===----------------------------------------------------------------------===//

def Df_StrConstantOp : Df_Op<"str_constant", [Pure]> {
  let summary = "A string literal";
  let description = [{
    ```mlir
    %s = df.str_constant "error"
    ```
  }];
  let arguments = (ins StrAttr:$value);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$value attr-dict";
}

def Df_SplitOp : Df_Op<"split", [Pure]> {
  let summary = "Split a string around every occurrence of a delimiter, or at whitespace";
  let description = [{
    With the host's semantics (the module's `df.host`): on the JVM,
    `s.split(Pattern.quote(d))`, which drops the empty fields at the end
    (`"a,,"` is `["a"]`, `","` is `[]`, `""` is `[""]`); in Python,
    `s.split(d)`, which keeps them. The delimiter must not be empty.

    Without a delimiter it is Python's `s.split()` (`df.host = "python"`
    only): the pieces between runs of whitespace (`str.isspace()`
    characters), none empty, so `"  a b "` is `["a", "b"]` and `""` and
    `"  "` are `[]`.

    ```mlir
    %f = df.split %line "," : !df.list<!df.str>
    %w = df.split %line : !df.list<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyString:$input, OptionalAttr<StrAttr>:$delimiter);
  let results = (outs Df_AnyList:$result);
  let assemblyFormat = "$input ($delimiter^)? attr-dict `:` type($result)";
}

def Df_RegexSplitOp : Df_Op<"regex_split", [Pure]> {
  let summary = "Python's re.split of a string by a pattern of one character class";
  let description = [{
    `re.split(pattern, s)` where the pattern is one character class, alone
    or followed by `+` (`\W+`, `\s+`, `[,;]`, `[^a-z']+`): the text
    between maximal runs of the class, or between single characters of
    it, empty at an end the class touches (`re.split(r"\W+", "Hi, you!")`
    is `["Hi", "you", ""]`, and `""` is `[""]`). Classes follow Python's
    `re` on `str` patterns (`\w` is `str.isalnum()` or `_`); `ascii` is
    the `re.ASCII` flag. Other patterns (groups, alternation, anchors, `*`)
    are refused by the verifier, which names the construct.
    `df.host = "python"` only.

    ```mlir
    %w = df.regex_split %line "\\W+" : !df.list<!df.str>
    %f = df.regex_split %line "[,;]" ascii : !df.list<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyString:$input, StrAttr:$pattern, UnitAttr:$ascii);
  let results = (outs Df_AnyList:$result);
  let assemblyFormat = "$input $pattern (`ascii` $ascii^)? attr-dict `:` type($result)";
}

def Df_RegexFindAllOp : Df_Op<"regex_find_all", [Pure]> {
  let summary = "Python's re.findall of a pattern of one character class";
  let description = [{
    `re.findall(pattern, s)` where the pattern is one character class
    followed by `+` (`\w+`, `[a-z']+`): its maximal runs in `s`, in order,
    none empty (`re.findall(r"\w+", "Hi, you!")` is `["Hi", "you"]`, and
    `""` gives `[]`). A class without `+` gives its characters one by one.
    Classes and `ascii` are as for `df.regex_split`. `df.host = "python"`
    only.

    ```mlir
    %w = df.regex_find_all %line "\\w+" : !df.list<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyString:$input, StrAttr:$pattern, UnitAttr:$ascii);
  let results = (outs Df_AnyList:$result);
  let assemblyFormat = "$input $pattern (`ascii` $ascii^)? attr-dict `:` type($result)";
}

def Df_CsvRowOp : Df_Op<"csv_row", [Pure]> {
  let summary = "The row Python's csv.reader reads from one line";
  let description = [{
    `next(csv.reader([line]))`, what `mapPartitions(csv.reader)` gives
    for each line of a text file: the default (excel) dialect, fields cut
    at `,`, `"` quoting with `""` for a quote inside quotes, and
    `strict=False` (`a"b` is the field `a"b`). The empty line gives the
    empty row `[]`. A line break in an unquoted field fails the task
    (`csv.Error`); a quoted field still open at the end of the line, which
    `csv.reader` would continue on the next line, is an error of the
    model. `df.host = "python"` only.

    ```mlir
    %row = df.csv_row %line : !df.list<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyString:$input);
  let results = (outs Df_AnyList:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Df_GetOp : Df_Op<"get"> {
  let summary = "Element `index` of a list; fails when the list is too short";
  let description = [{
    Not `Pure`: reading past the end terminates the program (an
    `ArrayIndexOutOfBoundsException` in Spark, an `IndexError` in Python),
    a path BigTest covers.

    With an `!df.option` of the element type as its result the op is total
    (Python's `try: x = l[i] except IndexError: ...`): the element, present,
    or absent past the end.

    ```mlir
    %x = df.get %f[2] : !df.list<!df.str> -> !df.str
    %o = df.get %f[2] : !df.list<!df.str> -> !df.option<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyList:$list, I64Attr:$index);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$list `[` $index `]` attr-dict `:` type($list) `->` type($result)";
}

def Df_GetAtOp : Df_Op<"get_at", [Pure]> {
  let summary = "Element at a computed index of a list, absent past the end";
  let description = [{
    The total form of `df.get` with the index an SSA value: the element
    when `0 <= index < size`, absent otherwise (a negative index does not
    count from the end). The PySpark front end lowers `for x in xs:` to a
    `cf` loop whose header reads element `i` with it and leaves the loop
    when it is absent, so a loop over a split of the input runs once per
    piece. BigTest follows the loop while the index folds to a constant,
    as it does in such a loop, each trip deciding "more than `i` pieces".

    ```mlir
    %o = df.get_at %f[%i] : !df.list<!df.str> -> !df.option<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyList:$list, I64:$index);
  let results = (outs Df_AnyOption:$result);
  let assemblyFormat = "$list `[` $index `]` attr-dict `:` type($list) `->` type($result)";
}

def Df_RangeOp : Df_Op<"range", [Pure]> {
  let summary = "The integers `start, start + 1, ..., stop - 1` as a list";
  let description = [{
    Python's `range(start, stop)` (step 1), as a list: empty when
    `stop <= start`. The PySpark front end lowers the list a flatMap's
    comprehension iterates (`[(xs[i], xs[i + 1]) for i in range(len(xs) -
    1)]`) to it; BigTest follows element `j` where `start + j < stop`, as it
    follows a split's pieces.

    ```mlir
    %r = df.range %c0, %n : !df.list<i64>
    ```
  }];
  let arguments = (ins I64:$start, I64:$stop);
  let results = (outs Df_AnyList:$result);
  let assemblyFormat = "$start `,` $stop attr-dict `:` type($result)";
}

def Df_RoundOp : Df_Op<"round", [Pure]> {
  let summary = "A double rounded to `scale` decimal places, as Spark SQL rounds";
  let description = [{
    Spark SQL's `round(x, scale)` (HALF_UP) and, with `half_even`,
    `bround(x, scale)` of a double: the shortest decimal text that reads
    back as `x` (Java's `Double.toString`), rounded at `scale` places after
    the point (before it where negative), read back as the nearest double.
    NaN and the infinities stay as they are. So `round(2.675, 2)` is 2.68,
    where Python's `round` gives 2.67.

    ```mlir
    %r = df.round %x scale 2
    %b = df.round %x scale 0 half_even
    ```
  }];
  let arguments = (ins F64:$value, I64Attr:$scale, UnitAttr:$half_even);
  let results = (outs F64:$result);
  let assemblyFormat = "$value `scale` $scale (`half_even` $half_even^)? attr-dict";
}

def Df_SizeOp : Df_Op<"size", [Pure]> {
  let summary = "Number of elements of a list";
  let description = [{
    ```mlir
    %n = df.size %f : !df.list<!df.str>
    ```
  }];
  let arguments = (ins Df_AnyList:$list);
  let results = (outs I64:$result);
  let assemblyFormat = "$list attr-dict `:` type($list)";
}

def Df_SubstrOp : Df_Op<"substr"> {
  let summary = "Substring `[start, start + length)`";
  let description = [{
    On the JVM, `s.substring(start, start + length)` in UTF-16 units, which
    fails (a `StringIndexOutOfBoundsException`) when the range leaves the
    string; in Python, `s[start:start + length]`, which clamps and never
    fails.

    ```mlir
    %y = df.substr %date, %c0, %c4
    ```
  }];
  let arguments = (ins Df_AnyString:$input, I64:$start, I64:$length);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input `,` $start `,` $length attr-dict";
}

def Df_ToIntOp : Df_Op<"to_int"> {
  let summary = "Parse a decimal integer as the host does; fails otherwise";
  let description = [{
    On the JVM, `Long.parseLong` (an optional sign and decimal digits, no
    spaces), or with `int32` `Integer.parseInt` (Java's `Integer.parseInt`,
    Scala's `.toInt`), which fails beyond the 32-bit range; the result is
    widened to i64 either way. In Python, `int()` (surrounding spaces,
    underscores between digits), where a value beyond i64 is an error of
    the model, not a failure of the job; `int32` is the JVM's only.

    With the result type `!df.option<i64>` written after a colon the op is
    total (Python's `try: n = int(s) except ValueError: ...`): the value,
    present, where the parse succeeds, and absent where it would fail.

    ```mlir
    %n = df.to_int %s
    %m = df.to_int %t int32
    %o = df.to_int %s : !df.option<i64>
    ```
  }];
  let arguments = (ins Df_AnyString:$input, UnitAttr:$int32);
  let results = (outs AnyTypeOf<[I64, Df_AnyOption]>:$result);
  let assemblyFormat = [{
    $input (`int32` $int32^)? attr-dict `` custom<ResultType>(type($result), "$_builder.getI64Type()")
  }];
}

def Df_ToFloatOp : Df_Op<"to_float"> {
  let summary = "Parse a floating-point number as the host does; fails otherwise";
  let description = [{
    On the JVM, `Double.parseDouble` (`NaN`, `Infinity`, a `d`/`f` suffix,
    surrounding control characters and spaces); in Python, `float()`
    (`nan`, `inf` in any case, underscores between digits).

    With the result type `!df.option<f64>` the op is total, as `df.to_int`'s
    is: absent where the parse would fail.

    ```mlir
    %x = df.to_float %s
    %o = df.to_float %s : !df.option<f64>
    ```
  }];
  let arguments = (ins Df_AnyString:$input);
  let results = (outs AnyTypeOf<[F64, Df_AnyOption]>:$result);
  let assemblyFormat = [{
    $input attr-dict `` custom<ResultType>(type($result), "$_builder.getF64Type()")
  }];
}

def Df_SqlCastOp : Df_Op<"sql_cast"> {
  let summary = "Spark SQL's CAST of a string to int, bigint, double or boolean, NULL where it fails";
  let description = [{
    `CAST(s AS target)` as Spark 3.5 computes it with ANSI mode off, which
    is not the host language's parse: absent (SQL's NULL) where the text is
    not a value of the target type. The rules, from Spark's `UTF8String`
    and `Cast`:

    * `int`, `bigint`: bytes up to U+0020 and U+007F trimmed at both ends,
      an optional sign, ASCII digits, and an optional `.` with ASCII digits
      after it that are dropped (`" 12 "` is 12, `"1.9"` is 1, `"."` and
      `"+."` are 0); absent beyond the type's range, for `"1e3"`, `"1_0"`,
      `"0x10"` and non-ASCII digits. The result is widened to i64.
    * `double`: Java's `Double.parseDouble` (characters up to U+0020
      trimmed, `NaN`, `Infinity`, a `d`/`f` suffix, exponents), and then
      `inf`, `+inf`, `infinity`, `+infinity`, `-inf`, `-infinity` and `nan`
      in any case.
    * `boolean`: trimmed as for `int`, then in any case `t`, `true`, `y`,
      `yes`, `1` are true and `f`, `false`, `n`, `no`, `0` false.

    The op is total; which way it went (`@f:sql_cast#3=absent`, `=present`)
    is a JDU decision, as for the total form of `df.to_int`, so it is not
    `Pure`: CSE or DCE would merge or drop a decision the paths name.

    ```mlir
    %n = df.sql_cast %s to bigint : !df.option<i64>
    %x = df.sql_cast %s to double : !df.option<f64>
    %b = df.sql_cast %s to boolean : !df.option<i1>
    ```
  }];
  let arguments = (ins Df_AnyString:$input, Df_SqlCastTarget:$target);
  let results = (outs Df_AnyOption:$result);
  let assemblyFormat = "$input `to` $target attr-dict `:` type($result)";
}

def Df_ToStrOp : Df_Op<"to_str", [Pure]> {
  let summary = "Text of an integer, float or boolean, as the host prints it";
  let description = [{
    On the JVM, `toString` (`1.0E7`, `true`); in Python, `str()` (`1e+16`,
    `True`).

    ```mlir
    %s = df.to_str %n : i64
    ```
  }];
  let arguments = (ins AnyTypeOf<[I64, F64, I1]>:$input);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Df_LengthOp : Df_Op<"length", [Pure]> {
  let summary = "Length of a string as the host counts it";
  let description = [{
    UTF-16 code units on the JVM (`String.length`), code points in Python
    (`len`).

    ```mlir
    %n = df.length %s
    ```
  }];
  let arguments = (ins Df_AnyString:$input);
  let results = (outs I64:$result);
  let assemblyFormat = "$input attr-dict";
}

def Df_ConcatOp : Df_Op<"concat", [Pure]> {
  let summary = "Concatenate two strings";
  let description = [{
    ```mlir
    %s = df.concat %a, %b
    ```
  }];
  let arguments = (ins Df_AnyString:$lhs, Df_AnyString:$rhs);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

class Df_StrPredicateOp<string mnemonic, string summaryText>
    : Df_Op<mnemonic, [Pure]> {
  let summary = summaryText;
  let description = "```mlir\n%b = df." # mnemonic # " %s, %t\n```";
  let arguments = (ins Df_AnyString:$lhs, Df_AnyString:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Df_ContainsOp : Df_StrPredicateOp<"contains", "Whether `lhs` contains `rhs`">;
def Df_StartsWithOp : Df_StrPredicateOp<"starts_with", "Whether `lhs` starts with `rhs`">;
def Df_EndsWithOp : Df_StrPredicateOp<"ends_with", "Whether `lhs` ends with `rhs`">;
def Df_StrEqOp : Df_StrPredicateOp<"str_eq", "Whether two strings are equal">;

def Df_FindOp : Df_Op<"find", [Pure]> {
  let summary = "Index of the first occurrence of `rhs` in `lhs`, or -1";
  let description = [{
    Python's `s.find(t)`, in code points; on the JVM `s.indexOf(t)`, in
    UTF-16 units. An empty `rhs` is found at 0.

    ```mlir
    %i = df.find %s, %t
    ```
  }];
  let arguments = (ins Df_AnyString:$lhs, Df_AnyString:$rhs);
  let results = (outs I64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Df_ReplaceOp : Df_Op<"replace", [Pure]> {
  let summary = "Every occurrence of `old` replaced by `replacement`";
  let description = [{
    Python's `s.replace(old, new)` and Java's `s.replace(old, new)`:
    occurrences are found from the left and do not overlap
    (`"aaa".replace("aa", "x")` is `"xa"`). `old` must not be empty (both
    languages would insert the replacement between every character): a constant
    empty `old` is a verifier error, another one an error of the model.

    ```mlir
    %t = df.replace %s, %old, %new
    ```
  }];
  let arguments = (ins Df_AnyString:$input, Df_AnyString:$old, Df_AnyString:$replacement);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input `,` $old `,` $replacement attr-dict";
}

def Df_StripOp : Df_Op<"strip", [Pure]> {
  let summary = "Whitespace removed from both ends, the left or the right";
  let description = [{
    Python's `s.strip()`, `s.lstrip()` and `s.rstrip()` without an
    argument: the characters for which `str.isspace()` holds (Unicode
    White_Space and the separators U+001C..U+001F). `df.host = "python"`
    only.

    With `spaces`, only U+0020 is removed, on either host: Spark SQL's
    `trim`, `ltrim` and `rtrim`, and Python's `s.strip(" ")`.

    ```mlir
    %t = df.strip %s both
    %l = df.strip %s left
    %r = df.strip %s right
    %p = df.strip %s both spaces
    ```
  }];
  let arguments = (ins Df_AnyString:$input, Df_StripSide:$side, UnitAttr:$spaces);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input $side (`spaces` $spaces^)? attr-dict";
}

def Df_LowerOp : Df_Op<"lower", [Pure]> {
  let summary = "The string in lower case";
  let description = [{
    Python's `s.lower()` (Unicode's full case mapping: `"İ"` becomes two
    code points). `df.host = "python"` only.

    ```mlir
    %t = df.lower %s
    ```
  }];
  let arguments = (ins Df_AnyString:$input);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input attr-dict";
}

def Df_UpperOp : Df_Op<"upper", [Pure]> {
  let summary = "The string in upper case";
  let description = [{
    Python's `s.upper()` (`"ß"` becomes `"SS"`). `df.host = "python"` only.

    ```mlir
    %t = df.upper %s
    ```
  }];
  let arguments = (ins Df_AnyString:$input);
  let results = (outs Df_AnyString:$result);
  let assemblyFormat = "$input attr-dict";
}

def Df_IsPresentOp : Df_Op<"is_present", [Pure]> {
  let summary = "Whether an option holds a value";
  let description = [{
    ```mlir
    %b = df.is_present %o : !df.option<f64>
    ```
  }];
  let arguments = (ins Df_AnyOption:$input);
  let results = (outs I1:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Df_ValueOrOp : Df_Op<"value_or", [Pure, AllTypesMatch<["default_value", "result"]>]> {
  let summary = "The value of an option, or a default when absent";
  let description = [{
    ```mlir
    %x = df.value_or %o, %zero : !df.option<f64>, f64
    ```
  }];
  let arguments = (ins Df_AnyOption:$input, AnyType:$default_value);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input `,` $default_value attr-dict `:` type($input) `,` type($result)";
}

//===----------------------------------------------------------------------===//
// Python arithmetic and exceptions
//===----------------------------------------------------------------------===//

def Df_FloorDivOp : Df_Op<"floordiv"> {
  let summary = "Integer division rounding down (Python's `//`); fails on a zero divisor";
  let description = [{
    The quotient rounded towards negative infinity (`-7 // 2` is `-4`),
    Java's `Math.floorDiv`. Not `Pure`: a zero divisor fails the program
    (`ZeroDivisionError`, `ArithmeticException`). Like `arith.divsi`, the
    quotient wraps in i64 (`-2^63 // -1` is `-2^63`).

    ```mlir
    %q = df.floordiv %a, %b
    ```
  }];
  let arguments = (ins I64:$lhs, I64:$rhs);
  let results = (outs I64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Df_ModOp : Df_Op<"mod"> {
  let summary = "Remainder with the sign of the divisor (Python's `%`); fails on a zero divisor";
  let description = [{
    `a - b * (a // b)`: `-7 % 2` is `1`, `7 % -2` is `-1` (Java's
    `Math.floorMod`). A zero divisor fails the program.

    ```mlir
    %r = df.mod %a, %b
    ```
  }];
  let arguments = (ins I64:$lhs, I64:$rhs);
  let results = (outs I64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Df_TrueDivOp : Df_Op<"truediv"> {
  let summary = "Python's float division `/`; fails on a zero divisor";
  let description = [{
    `a / b` in IEEE arithmetic, except that a zero divisor (`0.0` or
    `-0.0`) fails the program with `ZeroDivisionError` where
    `arith.divf` (and the JVM) give an infinity or NaN. `df.host =
    "python"` only.

    ```mlir
    %q = df.truediv %a, %b
    ```
  }];
  let arguments = (ins F64:$lhs, F64:$rhs);
  let results = (outs F64:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Df_RaiseOp : Df_Op<"raise", [Terminator]> {
  let summary = "Fail the UDF with an exception";
  let description = [{
    A terminator of a block of a UDF's body (not of an `scf` region): the
    program fails here, as Python's `raise ValueError("bad line")` fails a
    PySpark task. `exception` names the exception class, a Python
    identifier; `message` is optional.

    ```mlir
    df.raise "ValueError"
    df.raise "ValueError", "bad line"
    ```
  }];
  let arguments = (ins StrAttr:$exception, OptionalAttr<StrAttr>:$message);
  let assemblyFormat = "$exception (`,` $message^)? attr-dict";
}

#endif // DF_OPS
