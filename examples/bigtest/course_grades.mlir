// Best score per course for the course catalogue. Grades "course,student,score"
// are joined right_outer with the catalogue, so every course appears even
// without grades: df.is_present and df.value_or read the optional side, and
// arith.select turns a missing score into the sentinel -1. A maximum per key
// (arith.maxsi) follows, then an scf.if with a result formats the report line
// with df.concat and df.to_str.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @score_or_missing(%course: !df.str, %student: !df.option<!df.str>, %score: !df.option<i64>, %title: !df.str) -> (!df.str, i64) {
  %graded = df.is_present %score : !df.option<i64>
  %zero = arith.constant 0 : i64
  %value = df.value_or %score, %zero : !df.option<i64>, i64
  %missing = arith.constant -1 : i64
  %best = arith.select %graded, %value, %missing : i64
  return %title, %best : !df.str, i64
}

func.func @max(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @report(%title: !df.str, %best: i64) -> !df.str {
  %zero = arith.constant 0 : i64
  %ungraded = arith.cmpi slt, %best, %zero : i64
  %line = scf.if %ungraded -> (!df.str) {
    %suffix = df.str_constant ": no grades yet"
    %text = df.concat %title, %suffix
    scf.yield %text : !df.str
  } else {
    %label = df.str_constant ": best score "
    %prefix = df.concat %title, %label
    %digits = df.to_str %best : i64
    %text = df.concat %prefix, %digits
    scf.yield %text : !df.str
  }
  return %line : !df.str
}

func.func @course_grades() {
  %grades = df.source "grades" path "data/grades.csv" delimiter "," : !df.dataset<tuple<!df.str, !df.str, i64>>
  %courses = df.source "courses" path "data/courses.csv" delimiter "," : !df.dataset<tuple<!df.str, !df.str>>
  %joined = df.join right_outer %grades, %courses : !df.dataset<tuple<!df.str, !df.str, i64>>, !df.dataset<tuple<!df.str, !df.str>> -> !df.dataset<tuple<!df.str, !df.option<!df.str>, !df.option<i64>, !df.str>>
  %scores = df.map %joined @score_or_missing : !df.dataset<tuple<!df.str, !df.option<!df.str>, !df.option<i64>, !df.str>> -> !df.dataset<tuple<!df.str, i64>>
  %best = df.reduce_by_key %scores @max : !df.dataset<tuple<!df.str, i64>>
  %lines = df.map %best @report : !df.dataset<tuple<!df.str, i64>> -> !df.dataset<!df.str>
  df.sink "course_report" %lines path "course_report.txt" : !df.dataset<!df.str>
  return
}
}
