// Bytes served per client host from a web server access log. Each line is
// "host method path status bytes"; status and bytes are parsed with to_int (a
// parse that can fail), health-check probes are dropped with starts_with, and
// error responses (status >= 400) are charged zero bytes through an
// unstructured cf.cond_br / cf.br diamond before a sum per host.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @parse_request(%line: !df.str) -> (!df.str, !df.str, i64, i64) {
  %fields = df.split %line " " : !df.list<!df.str>
  %host = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %path = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %status_text = df.get %fields[3] : !df.list<!df.str> -> !df.str
  %bytes_text = df.get %fields[4] : !df.list<!df.str> -> !df.str
  %status = df.to_int %status_text
  %bytes = df.to_int %bytes_text
  return %host, %path, %status, %bytes : !df.str, !df.str, i64, i64
}

func.func @not_health_check(%host: !df.str, %path: !df.str, %status: i64, %bytes: i64) -> i1 {
  %prefix = df.str_constant "/health"
  %probe = df.starts_with %path, %prefix
  %true = arith.constant true
  %keep = arith.xori %probe, %true : i1
  return %keep : i1
}

func.func @charged_bytes(%host: !df.str, %path: !df.str, %status: i64, %bytes: i64) -> (!df.str, i64) {
  %c400 = arith.constant 400 : i64
  %failed = arith.cmpi sge, %status, %c400 : i64
  cf.cond_br %failed, ^error, ^ok
^error:
  %zero = arith.constant 0 : i64
  cf.br ^done(%zero : i64)
^ok:
  cf.br ^done(%bytes : i64)
^done(%charged: i64):
  return %host, %charged : !df.str, i64
}

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @weblog_bytes() {
  %log = df.source "access_log" path "data/access.log" delimiter "\t" : !df.dataset<!df.str>
  %requests = df.map %log @parse_request : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, !df.str, i64, i64>>
  %real = df.filter %requests @not_health_check : !df.dataset<tuple<!df.str, !df.str, i64, i64>>
  %charged = df.map %real @charged_bytes : !df.dataset<tuple<!df.str, !df.str, i64, i64>> -> !df.dataset<tuple<!df.str, i64>>
  %per_host = df.reduce_by_key %charged @add : !df.dataset<tuple<!df.str, i64>>
  df.sink "bytes_per_host" %per_host path "bytes_per_host.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
}
