// Values chosen with --input or {coco.input = "..."} are exact for integer
// inputs (2^53 + 1 stays 2^53 + 1: it no longer goes through an f64) and
// checked against the element type: an integer outside it, uniform bounds
// that would draw outside it, and a float literal that becomes infinity or
// 0 in it are errors naming the input, the value and the range. inf
// written as such stays a value.
// RUN: coco-run %s --entry ints --backend reference --input big=9007199254740993 --input n=-2147483648 --input x=inf --print-values | FileCheck %s --check-prefix=EXACT
// RUN: coco-run %s --entry ints --backend cpu --input big=9007199254740993 --input n=2147483647 --input x=1e-45 --check | FileCheck %s --check-prefix=CPU
// RUN: not coco-run %s --entry ints --backend reference --input n=3000000000 2>&1 | FileCheck %s --check-prefix=I32
// RUN: not coco-run %s --entry ints --backend reference --input big=9223372036854775808 2>&1 | FileCheck %s --check-prefix=I64
// RUN: not coco-run %s --entry ints --backend reference --input big=1e19 2>&1 | FileCheck %s --check-prefix=E19
// RUN: not coco-run %s --entry ints --backend reference --input 'n=uniform(0,5000000000)' 2>&1 | FileCheck %s --check-prefix=UNIFORM
// RUN: not coco-run %s --entry ints --backend reference --input x=1e39 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not coco-run %s --entry ints --backend reference --input x=1e-50 2>&1 | FileCheck %s --check-prefix=UNDERFLOW
// RUN: not coco-run %s --entry declared --backend reference 2>&1 | FileCheck %s --check-prefix=DECLARED
// RUN: not coco-run %s --entry tiny --backend reference 2>&1 | FileCheck %s --check-prefix=TINY

// EXACT:      ints.result0: i32 [] scalar
// EXACT-NEXT:   [-2147483648]
// EXACT:      ints.result1: i64 [] scalar
// EXACT-NEXT:   [9007199254740993]
// EXACT:      ints.result2: f32 [] scalar
// EXACT-NEXT:   [inf]

// CPU: ints.result0: bitwise equal
// CPU: ints.result1: bitwise equal
// CPU: ints.result2: bitwise equal

// I32: coco-run: error: --input n: 3000000000 is outside i32's range [-2147483648, 2147483647]
// I64: coco-run: error: --input big: 9223372036854775808 is outside i64's range [-9223372036854775808, 9223372036854775807]
// E19: coco-run: error: --input big: 10000000000000000000 is outside i64's range [-9223372036854775808, 9223372036854775807]
// UNIFORM: coco-run: error: --input n: uniform(0,5000000000) draws i32 values from 0 to 4999999999, outside i32's range [-2147483648, 2147483647]
// OVERFLOW: coco-run: error: --input x: 1e39 overflows f32 to infinity (its largest finite value is 3.4028234663852886e38)
// UNDERFLOW: coco-run: error: --input x: 1e-50 underflows f32 to 0 (its smallest nonzero value is 1.401298464324817e-45)
// DECLARED: coco-run: error: tools/coco-run/input-values.mlir:{{[0-9]+}}:1: {coco.input = "uniform(0,5000000000)"} on declared.arg0: uniform(0,5000000000) draws i32 values from 0 to 4999999999, outside i32's range
// TINY: coco-run: error: tools/coco-run/input-values.mlir:{{[0-9]+}}:1: {coco.input = "1e-50"} on tiny.arg0: 1e-50 underflows f32 to 0
func.func @ints(%n: i32, %big: i64, %x: f32) -> (i32, i64, f32) {
  return %n, %big, %x : i32, i64, f32
}

func.func @declared(%n: i32 {coco.input = "uniform(0,5000000000)"}) -> i32 {
  return %n : i32
}

func.func @tiny(%x: f32 {coco.input = "1e-50"}) -> f32 {
  return %x : f32
}
