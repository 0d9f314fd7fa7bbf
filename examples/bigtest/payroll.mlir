// Highest effective hourly pay per department across two sites. Timesheet
// lines "employee;dept;hours;rate" from both sites are combined with df.union
// and parsed with to_int (a parse that can fail). Gross pay comes from a
// helper reached by func.call whose body is a cf.cond_br / cf.br diamond
// (double time over 40 hours); dividing it by the hours worked is an
// arith.divsi that fails for an employee on leave (0 hours). Max per key.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @parse_timesheet(%line: !df.str) -> (!df.str, i64, i64) {
  %fields = df.split %line ";" : !df.list<!df.str>
  %dept = df.get %fields[1] : !df.list<!df.str> -> !df.str
  %hours_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %rate_text = df.get %fields[3] : !df.list<!df.str> -> !df.str
  %hours = df.to_int %hours_text
  %rate = df.to_int %rate_text
  return %dept, %hours, %rate : !df.str, i64, i64
}

// Not a UDF of any operator: called from @hourly_pay.
func.func @gross_pay(%hours: i64, %rate: i64) -> i64 {
  %regular = arith.constant 40 : i64
  %overtime = arith.cmpi sgt, %hours, %regular : i64
  cf.cond_br %overtime, ^premium, ^standard
^premium:
  %base = arith.muli %regular, %rate : i64
  %extra_hours = arith.subi %hours, %regular : i64
  %two = arith.constant 2 : i64
  %extra_rate = arith.muli %rate, %two : i64
  %extra = arith.muli %extra_hours, %extra_rate : i64
  %with_overtime = arith.addi %base, %extra : i64
  cf.br ^paid(%with_overtime : i64)
^standard:
  %plain = arith.muli %hours, %rate : i64
  cf.br ^paid(%plain : i64)
^paid(%gross: i64):
  return %gross : i64
}

func.func @hourly_pay(%dept: !df.str, %hours: i64, %rate: i64) -> (!df.str, i64) {
  %gross = func.call @gross_pay(%hours, %rate) : (i64, i64) -> i64
  %effective = arith.divsi %gross, %hours : i64
  return %dept, %effective : !df.str, i64
}

func.func @max(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @payroll() {
  %berlin = df.source "berlin" path "data/timesheets_berlin.txt" delimiter "\t" : !df.dataset<!df.str>
  %paris = df.source "paris" path "data/timesheets_paris.txt" delimiter "\t" : !df.dataset<!df.str>
  %all = df.union %berlin, %paris : !df.dataset<!df.str>
  %sheets = df.map %all @parse_timesheet : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64, i64>>
  %hourly = df.map %sheets @hourly_pay : !df.dataset<tuple<!df.str, i64, i64>> -> !df.dataset<tuple<!df.str, i64>>
  %top = df.reduce_by_key %hourly @max : !df.dataset<tuple<!df.str, i64>>
  df.sink "top_hourly_pay" %top path "top_hourly_pay.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
