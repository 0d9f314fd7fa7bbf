// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// One case per rule of compiler/dialects/src/df/verify.rs, plus the ODS structure.

func.func @bad_field() {
  // expected-error@+1 {{record field #0 of !df.dataset<tuple<i32, !df.str>> has type i32; fields are i64, f64, i1, !df.str}}
  %s = df.source "s" inline ["1,a"] delimiter "," : !df.dataset<tuple<i32, !df.str>>
  return
}

// -----

func.func @path_and_inline() {
  // expected-error@+1 {{takes either a path or inline records, not both}}
  %s = df.source "s" path "s.csv" inline ["1"] delimiter "," : !df.dataset<i64>
  return
}

// -----

func.func @no_data() {
  // expected-error@+1 {{needs a path or inline records}}
  %s = df.source "s" delimiter "," : !df.dataset<i64>
  return
}

// -----

func.func @empty_delimiter() {
  // expected-error@+1 {{delimiter must not be empty}}
  %s = df.source "s" inline ["1"] delimiter "" : !df.dataset<i64>
  return
}

// -----

func.func @list_field_in_source() {
  // expected-error@+1 {{reads text, so record fields must be i64, f64, i1 or !df.str; field #1 is !df.list<i64>}}
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<tuple<i64, !df.list<i64>>>
  return
}

// -----

func.func @record_arity() {
  // expected-error@+1 {{inline record #1 ("2") has 1 fields separated by ",", the record type has 2}}
  %s = df.source "s" inline ["1,a", "2"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  return
}

// -----

func.func @record_field_type() {
  // expected-error@+1 {{inline record #0 ("x,a") has field #0 "x", which is not a valid i64}}
  %s = df.source "s" inline ["x,a"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  return
}

// -----

func.func @duplicate_source() {
  %a = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{source name "s" is already used in @duplicate_source}}
  %b = df.source "s" inline ["2"] delimiter "," : !df.dataset<i64>
  return
}

// -----

func.func @missing_udf() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{UDF @nowhere is not a func.func in this module}}
  %m = df.map %s @nowhere : !df.dataset<i64> -> !df.dataset<i64>
  return
}

// -----

func.func @twice(%x: i64) -> f64 {
  %f = arith.sitofp %x : i64 to f64
  return %f : f64
}
func.func @map_signature() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{UDF @twice must have type (i64) -> (i64) for this operator, found (i64) -> (f64)}}
  %m = df.map %s @twice : !df.dataset<i64> -> !df.dataset<i64>
  return
}

// -----

func.func @words(%line: !df.str) -> !df.str {
  return %line : !df.str
}
func.func @flat_map_signature() {
  %s = df.source "s" inline ["a b"] delimiter "," : !df.dataset<!df.str>
  // expected-error@+1 {{UDF @words must have type (!df.str) -> (!df.list<!df.str>) for this operator, found (!df.str) -> (!df.str)}}
  %m = df.flat_map %s @words : !df.dataset<!df.str> -> !df.dataset<!df.str>
  return
}

// -----

func.func @tags(%user: !df.str, %tags: !df.str) -> (i64, !df.list<!df.str>) {
  %zero = arith.constant 0 : i64
  %t = df.split %tags ";" : !df.list<!df.str>
  return %zero, %t : i64, !df.list<!df.str>
}
func.func @flat_map_repeated_fields() {
  %s = df.source "s" inline ["a,x;y"] delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  // expected-error@+1 {{UDF @tags must have type (!df.str, !df.str) -> (!df.str, !df.list<!df.str>) for this operator, found (!df.str, !df.str) -> (i64, !df.list<!df.str>)}}
  %m = df.flat_map %s @tags : !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, !df.str>>
  return
}

// -----

func.func @not_a_predicate(%x: i64) -> i64 {
  return %x : i64
}
func.func @filter_signature() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{UDF @not_a_predicate must have type (i64) -> (i1) for this operator, found (i64) -> (i64)}}
  %f = df.filter %s @not_a_predicate : !df.dataset<i64>
  return
}

// -----

func.func @unary(%x: i64) -> i64 {
  return %x : i64
}
func.func @reduce_signature() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{UDF @unary must have type (i64, i64) -> (i64) for this operator, found (i64) -> (i64)}}
  %r = df.reduce %s @unary : !df.dataset<i64>
  return
}

// -----

func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}
func.func @reduce_by_key_needs_pairs() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{needs key-value records tuple<K, V...>, found i64}}
  %r = df.reduce_by_key %s @add : !df.dataset<i64>
  return
}

// -----

func.func @add_floats(%a: f64, %b: f64) -> f64 {
  %s = arith.addf %a, %b : f64
  return %s : f64
}
func.func @reduce_by_key_value_type() {
  %s = df.source "s" inline ["a,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  // expected-error@+1 {{UDF @add_floats must have type (i64, i64) -> (i64) for this operator, found (f64, f64) -> (f64)}}
  %r = df.reduce_by_key %s @add_floats : !df.dataset<tuple<!df.str, i64>>
  return
}

// -----

func.func @filter_changes_type() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{requires the same type for all operands and results}}
  %f = "df.filter"(%s) <{udf = @p}> : (!df.dataset<i64>) -> !df.dataset<f64>
  return
}

// -----

func.func @group_by_key_result() {
  %s = df.source "s" inline ["a,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  // expected-error@+1 {{result records must be tuple<!df.str, !df.list<i64>>, found tuple<!df.str, i64>}}
  %g = df.group_by_key %s : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64>>
  return
}

// -----

func.func @join_key_types() {
  %a = df.source "a" inline ["1,x"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  %b = df.source "b" inline ["x,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  // expected-error@+1 {{join keys must have the same type: left key is i64, right key is !df.str}}
  %j = df.join inner %a, %b : !df.dataset<tuple<i64, !df.str>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<i64, !df.str, i64>>
  return
}

// -----

func.func @outer_join_result() {
  %a = df.source "a" inline ["1,x"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  %b = df.source "b" inline ["1,2.5"] delimiter "," : !df.dataset<tuple<i64, f64>>
  // expected-error@+1 {{left_outer join result records must be tuple<i64, !df.str, !df.option<f64>>, found tuple<i64, !df.str, f64>}}
  %j = df.join left_outer %a, %b : !df.dataset<tuple<i64, !df.str>>, !df.dataset<tuple<i64, f64>> -> !df.dataset<tuple<i64, !df.str, f64>>
  return
}

// -----

func.func @full_outer_join_result() {
  %a = df.source "a" inline ["1,x"] delimiter "," : !df.dataset<tuple<i64, !df.str>>
  %b = df.source "b" inline ["1,2.5"] delimiter "," : !df.dataset<tuple<i64, f64>>
  // expected-error@+1 {{full_outer join result records must be tuple<i64, !df.option<!df.str>, !df.option<f64>>, found tuple<i64, !df.str, !df.option<f64>>}}
  %j = df.join full_outer %a, %b : !df.dataset<tuple<i64, !df.str>>, !df.dataset<tuple<i64, f64>> -> !df.dataset<tuple<i64, !df.str, !df.option<f64>>>
  return
}

// -----

func.func @join_unkeyed() {
  %a = df.source "a" inline ["1"] delimiter "," : !df.dataset<i64>
  %b = df.source "b" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{joins keyed records tuple<K, ...> with at least one value; found i64 and i64}}
  %j = df.join inner %a, %b : !df.dataset<i64>, !df.dataset<i64> -> !df.dataset<i64>
  return
}

// -----

func.func @get_type(%l: !df.list<!df.str>) -> i64 {
  // expected-error@+1 {{result type must be the list's element type !df.str, found i64}}
  %x = df.get %l[0] : !df.list<!df.str> -> i64
  return %x : i64
}

// -----

func.func @get_negative(%l: !df.list<!df.str>) -> !df.str {
  // expected-error@+1 {{index must be >= 0, found -1}}
  %x = df.get %l[-1] : !df.list<!df.str> -> !df.str
  return %x : !df.str
}

// -----

func.func @value_or_type(%o: !df.option<f64>, %d: i64) -> i64 {
  // expected-error@+1 {{default and result must have the option's element type f64, found i64}}
  %x = df.value_or %o, %d : !df.option<f64>, i64
  return %x : i64
}

// -----

func.func @nested(%x: i64) -> i64 {
  // expected-error@+1 {{is a dataset operator inside UDF @nested; UDFs may only compute on record values}}
  %s = df.source "inner" inline ["1"] delimiter "," : !df.dataset<i64>
  return %x : i64
}
func.func @program() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  %m = df.map %s @nested : !df.dataset<i64> -> !df.dataset<i64>
  return
}

// -----

func.func @group_by_key_needs_pairs() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{needs key-value records tuple<K, V>, found i64}}
  %g = df.group_by_key %s : !df.dataset<i64> -> !df.dataset<tuple<i64, !df.list<i64>>>
  return
}

// -----

func.func @source_name_leaves_the_folder() {
  // expected-error@+1 {{source name "../../X" contains a path separator; it names a file of generated test data, so it must be a plain file name}}
  %s = df.source "../../X" inline ["1"] delimiter "," : !df.dataset<i64>
  df.sink "out" %s : !df.dataset<i64>
  return
}

// -----

func.func @source_name_dot_dot() {
  // expected-error@+1 {{source name ".." is a relative folder}}
  %s = df.source ".." path "s.csv" delimiter "," : !df.dataset<i64>
  df.sink "out" %s : !df.dataset<i64>
  return
}

// -----

// expected-error@+1 {{df program name "a/b" contains a path separator}}
func.func @"a/b"() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  df.sink "out" %s : !df.dataset<i64>
  return
}

// -----

func.func @empty_delimiter(%line: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.split' op delimiter must not be empty (Java's split would cut between every character, Python's raises ValueError)}}
  %f = df.split %line "" : !df.list<!df.str>
  return %f : !df.list<!df.str>
}

// -----

// expected-error@+1 {{'builtin.module' op df.host must be one of "jvm", "python" (the language the job's UDFs run in), found "scala"}}
module attributes {df.host = "scala"} {
}

// -----

// expected-error@+1 {{'builtin.module' op df.host must be one of "jvm", "python" (the language the job's UDFs run in), found 1 : i64}}
module attributes {df.host = 1} {
}

// -----

// The exported job saves each sink as OUTPUT/<name>: a name that leaves the
// output folder, or is the folder itself, is refused.
func.func @sink_name_leaves_the_output() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{sink name "../X" contains a path separator; it names a folder of the exported job's output, so it must be a plain file name}}
  df.sink "../X" %s : !df.dataset<i64>
  return
}

// -----

func.func @sink_name_absolute() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{sink name "/tmp/X" contains a path separator}}
  df.sink "/tmp/X" %s : !df.dataset<i64>
  return
}

// -----

func.func @sink_name_empty() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{sink name "" is empty}}
  df.sink "" %s : !df.dataset<i64>
  return
}

// -----

func.func @sink_name_dot() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{sink name "." is a relative folder}}
  df.sink "." %s : !df.dataset<i64>
  return
}

// -----

func.func @sink_folder_twice() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  df.sink "a" %s : !df.dataset<i64>
  // expected-error@+1 {{sink folder "a" is already written by another sink of @sink_folder_twice}}
  df.sink "a" %s : !df.dataset<i64>
  return
}

// -----

func.func @sink_path_base_name() {
  %s = df.source "s" inline ["1"] delimiter "," : !df.dataset<i64>
  // expected-error@+1 {{sink path's base name "a\\b" contains a path separator}}
  df.sink "ok" %s path "out/a\\b" : !df.dataset<i64>
  return
}

// -----

// The total forms: an option of the plain result type.
func.func @total_to_int_of_float(%s: !df.str) -> !df.option<f64> {
  // expected-error@+1 {{'df.to_int' op result type must be i64, or !df.option<i64> for the form that never fails, found !df.option<f64>}}
  %o = df.to_int %s : !df.option<f64>
  return %o : !df.option<f64>
}

// -----

func.func @get_at_of_another_type(%l: !df.list<!df.str>, %i: i64) -> !df.option<i64> {
  // expected-error@+1 {{'df.get_at' op result type must be !df.option<!df.str> (absent past the end), found !df.option<i64>}}
  %o = df.get_at %l[%i] : !df.list<!df.str> -> !df.option<i64>
  return %o : !df.option<i64>
}

// -----

func.func @total_get_of_another_type(%l: !df.list<!df.str>) -> !df.option<i64> {
  // expected-error@+1 {{'df.get' op result type must be the list's element type !df.str, found !df.option<i64> (or !df.option<!df.str>, the form that never fails)}}
  %o = df.get %l[0] : !df.list<!df.str> -> !df.option<i64>
  return %o : !df.option<i64>
}

// -----

// Python's own ops need df.host = "python".
func.func @strip_on_the_jvm(%s: !df.str) -> !df.str {
  // expected-error@+1 {{'df.strip' op is Python's str.strip()/lstrip()/rstrip(), which df models under df.host = "python" only; the module's df.host is "jvm"}}
  %t = df.strip %s both
  return %t : !df.str
}

// -----

func.func @lower_on_the_jvm(%s: !df.str) -> !df.str {
  // expected-error@+1 {{'df.lower' op is Python's str.lower()}}
  %t = df.lower %s
  return %t : !df.str
}

// -----

func.func @truediv_on_the_jvm(%x: f64) -> f64 {
  // expected-error@+1 {{'df.truediv' op is Python's float division (ZeroDivisionError on a zero divisor)}}
  %q = df.truediv %x, %x
  return %q : f64
}

// -----

func.func @regex_split_on_the_jvm(%s: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.regex_split' op is Python's re.split(), which df models under df.host = "python" only; the module's df.host is "jvm"}}
  %w = df.regex_split %s "\\W+" : !df.list<!df.str>
  return %w : !df.list<!df.str>
}

// -----

func.func @csv_row_on_the_jvm(%s: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.csv_row' op is Python's csv.reader, which df models under df.host = "python" only; the module's df.host is "jvm"}}
  %r = df.csv_row %s : !df.list<!df.str>
  return %r : !df.list<!df.str>
}

// -----

module attributes {df.host = "python"} {
func.func @regex_group(%s: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.regex_split' op pattern `(,)`: groups (`(`) are not supported; a pattern is one character class, alone or followed by `+`}}
  %w = df.regex_split %s "(,)" : !df.list<!df.str>
  return %w : !df.list<!df.str>
}
}

// -----

module attributes {df.host = "python"} {
func.func @regex_star(%s: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.regex_find_all' op pattern `\s*`: the quantifier `*` is not supported}}
  %w = df.regex_find_all %s "\\s*" : !df.list<!df.str>
  return %w : !df.list<!df.str>
}
}

// -----

func.func @whitespace_split_on_the_jvm(%s: !df.str) -> !df.list<!df.str> {
  // expected-error@+1 {{'df.split' op a split without a delimiter is Python's str.split() (at whitespace); the module's df.host is "jvm": give a delimiter, or set df.host = "python"}}
  %w = df.split %s : !df.list<!df.str>
  return %w : !df.list<!df.str>
}

// -----

func.func @replace_empty(%s: !df.str) -> !df.str {
  %empty = df.str_constant ""
  // expected-error@+1 {{'df.replace' op old must not be empty (Python and Java would insert the replacement between every character)}}
  %t = df.replace %s, %empty, %s
  return %t : !df.str
}

// -----

func.func @raise_in_a_region(%s: !df.str) -> i64 {
  %n = scf.execute_region -> i64 {
    // expected-error@+1 {{'df.raise' op must end a block of a func.func body}}
    df.raise "ValueError"
  }
  return %n : i64
}

// -----

func.func @raise_of_a_non_identifier() {
  // expected-error@+1 {{'df.raise' op exception class must be a Python identifier such as "ValueError", found "Value Error"}}
  df.raise "Value Error"
}

// -----

// Spark's cast gives NULL where the parse fails: the result is an option of
// the target's df type.
func.func @sql_cast_plain_result(%s: !df.str) -> i64 {
  // expected-error@+1 {{'df.sql_cast' op result #0 must be df option, but got 'i64'}}
  %n = df.sql_cast %s to bigint : i64
  return %n : i64
}

// -----

func.func @sql_cast_wrong_element(%s: !df.str) -> !df.option<i64> {
  // expected-error@+1 {{'df.sql_cast' op result type of a cast to double must be !df.option<f64> (absent where Spark gives NULL), found !df.option<i64>}}
  %n = df.sql_cast %s to double : !df.option<i64>
  return %n : !df.option<i64>
}

// -----

// A key of several fields: the same types on both sides of a join.
func.func @join_keys_differ() {
  %a = df.source "a" inline ["x,1,2"] delimiter "," : !df.dataset<tuple<!df.str, i64, i64>>
  %b = df.source "b" inline ["x,y,2"] delimiter "," : !df.dataset<tuple<!df.str, !df.str, i64>>
  // expected-error@+1 {{join keys must have the same type: left key is !df.str, i64, right key is !df.str, !df.str}}
  %j = df.join inner %a, %b keys 2 : !df.dataset<tuple<!df.str, i64, i64>>, !df.dataset<tuple<!df.str, !df.str, i64>> -> !df.dataset<tuple<!df.str, i64, i64, i64>>
  return
}

// -----

func.func @reduce_by_key_no_value() {
  %a = df.source "a" inline ["x,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  // expected-error@+1 {{needs key-value records with 2 key fields and at least one value, found tuple<!df.str, i64>}}
  %r = df.reduce_by_key %a @add keys 2 : !df.dataset<tuple<!df.str, i64>>
  return
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}

// -----

func.func @no_keys() {
  %a = df.source "a" inline ["x,1"] delimiter "," : !df.dataset<tuple<!df.str, i64>>
  // expected-error@+1 {{'df.join' op attribute 'keys' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  %j = df.join inner %a, %a keys 0 : !df.dataset<tuple<!df.str, i64>>, !df.dataset<tuple<!df.str, i64>> -> !df.dataset<tuple<!df.str, i64, i64>>
  return
}

// -----

// Only i64 fields hold 32-bit integers.
func.func @int32_of_a_string() {
  // expected-error@+1 {{'df.source' op int32 names field #0, which is not an i64 field of the record}}
  %items = df.source "items" inline ["nut,5"] delimiter "," int32 [0] : !df.dataset<tuple<!df.str, i64>>
  return
}
