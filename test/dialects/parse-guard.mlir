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
