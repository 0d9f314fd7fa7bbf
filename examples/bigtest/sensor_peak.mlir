// Hottest plausible sensor reading across a fleet. Lines "sensor,epoch,celsius"
// are parsed with to_float (a parse that can fail); readings outside the
// hardware range (-40..85) or from test rigs (contains "test") are dropped
// with cmpf thresholds. A global df.reduce keeps the maximum with cmpf +
// arith.select, and an scf.if with a result labels it against a 30.0 alarm.

// Written as a Scala/Java Spark job: the df ops have JVM semantics
// (String.split drops trailing empty fields; docs/bigtest.md).
module attributes {df.host = "jvm"} {

func.func @parse_reading(%line: !df.str) -> (!df.str, f64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %sensor = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %celsius_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %celsius = df.to_float %celsius_text
  return %sensor, %celsius : !df.str, f64
}

func.func @plausible(%sensor: !df.str, %celsius: f64) -> i1 {
  %low = arith.constant -40.0 : f64
  %high = arith.constant 85.0 : f64
  %above = arith.cmpf ogt, %celsius, %low : f64
  %below = arith.cmpf olt, %celsius, %high : f64
  %in_range = arith.andi %above, %below : i1
  %test = df.str_constant "test"
  %is_test = df.contains %sensor, %test
  %true = arith.constant true
  %production = arith.xori %is_test, %true : i1
  %keep = arith.andi %in_range, %production : i1
  return %keep : i1
}

func.func @hotter(%s1: !df.str, %c1: f64, %s2: !df.str, %c2: f64) -> (!df.str, f64) {
  %first = arith.cmpf oge, %c1, %c2 : f64
  %sensor = arith.select %first, %s1, %s2 : !df.str
  %celsius = arith.maximumf %c1, %c2 : f64
  return %sensor, %celsius : !df.str, f64
}

func.func @label(%sensor: !df.str, %celsius: f64) -> (!df.str, f64, !df.str) {
  %alarm = arith.constant 30.0 : f64
  %hot = arith.cmpf oge, %celsius, %alarm : f64
  %level = scf.if %hot -> (!df.str) {
    %overheat = df.str_constant "overheat"
    scf.yield %overheat : !df.str
  } else {
    %normal = df.str_constant "normal"
    scf.yield %normal : !df.str
  }
  return %sensor, %celsius, %level : !df.str, f64, !df.str
}

func.func @sensor_peak() {
  %lines = df.source "readings" path "data/sensor_readings.csv" delimiter "\t" : !df.dataset<!df.str>
  %readings = df.map %lines @parse_reading : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, f64>>
  %valid = df.filter %readings @plausible : !df.dataset<tuple<!df.str, f64>>
  %peak = df.reduce %valid @hotter : !df.dataset<tuple<!df.str, f64>>
  %labelled = df.map %peak @label : !df.dataset<tuple<!df.str, f64>> -> !df.dataset<tuple<!df.str, f64, !df.str>>
  df.sink "peak_reading" %labelled : !df.dataset<tuple<!df.str, f64, !df.str>>
  return
}
}
