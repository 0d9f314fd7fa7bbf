// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// MLIR 19 corrupts its heap when a parse error follows a use of a value that
// is defined later inside a region that does not enclose the use
// (llvm/llvm-project#107121). coco-opt rejects such uses before MLIR parses
// them; valid forward references (across blocks of one region) still parse.

func.func @use_before_nested_definition(%p: f32) {
  // expected-error@+1 {{use of undeclared SSA value %a (it is defined on line 12}}
  "func.call"(%a) {callee = @f} : (f32) -> ()
  %k = scf.execute_region -> f32 {
    %a = arith.addf %p, %p : f32
    scf.yield %a : f32
  }
  return
}

// -----

func.func @use_of_value_from_a_sibling_function() {
  // expected-error@+1 {{use of undeclared SSA value %b (it is defined on line 26}}
  %c = arith.negf %b : f32
  return
}
func.func @sibling() -> f32 {
  %b = arith.constant 1.0 : f32
  return %b : f32
}

// -----

// A forward reference across blocks of one region is valid.
func.func @valid_forward_reference() {
  cf.br ^bb2
^bb1:
  %u = arith.addi %v, %v : i32
  return
^bb2:
  %v = arith.constant 1 : i32
  cf.br ^bb1
}

// -----

// A function argument is visible in the body only, not after the function.
func.func @arguments_stay_inside(%x: f32) {
  return
}
// expected-error@+1 {{use of undeclared SSA value %x (it is defined on line 51, in a region that does not enclose this use)}}
%y = arith.negf %x : f32
func.func @later(%x: f32) -> f32 {
  return %x : f32
}

// -----

// An operand list (`%a, %b : t`) is a use, not an argument list.
func.func @operands_are_uses(%t: i64) -> i64 {
  // expected-error@+1 {{use of undeclared SSA value %q}}
  %u = arith.divsi %t, %q : i64
  %r = scf.execute_region -> i64 {
    %q = arith.constant 2 : i64
    scf.yield %q : i64
  }
  return %u : i64
}

// -----

// Valid syntax the guard must read correctly: one-line bodies, attribute
// dictionaries before a body, region arguments of custom ops, spaced block
// arguments, generic regions.
func.func @one_line(%x: f32) -> f32 { return %x : f32 }
func.func @with_attributes(%x: f32) -> f32 attributes {llvm.emit_c_interface} {
  %y = arith.negf %x : f32
  return %y : f32
}
func.func @region_arguments(%n: index, %m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  scf.forall (%j, %k) in (%n, %n) {
    %v = memref.load %m[%j] : memref<8xf32>
  }
  return
}
func.func @spaced_block_arguments(%c: i1) -> i32 {
  %one = arith.constant 1 : i32
  cf.cond_br %c, ^bb1(%one : i32), ^bb1(%one : i32)
^bb1(%v : i32):
  return %v : i32
}
"func.func"() <{function_type = (i32) -> i32, sym_name = "generic"}> ({
^bb0(%arg : i32):
  "func.return"(%arg) : (i32) -> ()
}) : () -> ()
