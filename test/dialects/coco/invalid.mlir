// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// One case per rule: ODS structure first, then the Rust layout rules of
// compiler/dialects/src/coco/verify.rs.

func.func @no_layout(%x: tensor<8xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor with a coco layout encoding}}
  %0 = coco.all_reduce sum %x : tensor<8xf32> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @unknown_reduction(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, prod, min, max, avg]}}
  %0 = coco.all_reduce median %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @all_reduce_of_replicated(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{'coco.all_reduce' op expects operand layout #coco.local, found #coco.replicated}}
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @all_reduce_to_local(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{expects result layout #coco.replicated for operand layout #coco.local, found #coco.local}}
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.local>
  return
}

// -----

func.func @all_reduce_shape(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{result shape 4 differs from operand shape 8 (shapes are global)}}
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  return
}

// -----

func.func @all_reduce_element(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{result element type f16 differs from operand element type f32}}
  %0 = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<8xf16, #coco.replicated>
  return
}

// -----

func.func @reduce_scatter_to_replicated(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.reduce_scatter' op expects result layout #coco.sliced<d> for operand layout #coco.local, found #coco.replicated}}
  %0 = coco.reduce_scatter sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @all_gather_of_local(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.all_gather' op expects operand layout #coco.sliced<d>, found #coco.local}}
  %0 = coco.all_gather %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @broadcast_of_slices(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{'coco.broadcast' op expects operand layout #coco.local or #coco.replicated, found #coco.sliced<0>}}
  %0 = coco.broadcast %x root 0 : tensor<8xf32, #coco.sliced<0>> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @broadcast_negative_root(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{root must be a rank (>= 0), found -1}}
  %0 = coco.broadcast %x root -1 : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @reduce_to_replicated(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.reduce' op expects result layout #coco.local for operand layout #coco.local, found #coco.replicated}}
  %0 = coco.reduce sum %x root 0 : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @all_to_all_same_dimension(%x: tensor<8x8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{re-slices along the dimension it is already sliced on}}
  %0 = coco.all_to_all %x : tensor<8x8xf32, #coco.sliced<0>> -> tensor<8x8xf32, #coco.sliced<0>>
  return
}

// -----

func.func @slice_of_local(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.slice' op expects operand layout #coco.replicated, found #coco.local}}
  %0 = coco.slice %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.sliced<0>>
  return
}

// -----

func.func @sliced_dimension_out_of_range(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result #0 is sliced along dimension 1, but the tensor has rank 1}}
  %0 = coco.slice %x : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.sliced<1>>
  return
}

// -----

// expected-error@+1 {{argument #0 is sliced along dimension 3, but the tensor has rank 2}}
func.func @argument_sliced_out_of_range(%x: tensor<8x8xf32, #coco.sliced<3>>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has dynamic shape ?; distributed tensors need static global shapes}}
func.func @dynamic_shape(%x: tensor<?xf32, #coco.local>) {
  // expected-error@+2 {{operand #0 has dynamic shape ?; distributed tensors need static global shapes}}
  // expected-error@+1 {{result shape 8 differs from operand shape ?}}
  %0 = coco.all_reduce sum %x : tensor<?xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @matmul_without_rule(%a: tensor<8x16xf32, #coco.replicated>, %b: tensor<16x32xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{has no layout rule for lhs #coco.replicated and rhs #coco.sliced<0>}}
  %0 = coco.matmul %a, %b : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<0>> -> tensor<8x32xf32, #coco.replicated>
  return
}

// -----

func.func @row_parallel_matmul_is_partial(%a: tensor<8x16xf32, #coco.sliced<1>>, %b: tensor<16x32xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{expects result layout #coco.local for operand layouts #coco.sliced<1>, #coco.sliced<0>, found #coco.replicated}}
  %0 = coco.matmul %a, %b : tensor<8x16xf32, #coco.sliced<1>>, tensor<16x32xf32, #coco.sliced<0>> -> tensor<8x32xf32, #coco.replicated>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<8x16xf32, #coco.replicated>, %b: tensor<8x32xf32, #coco.replicated>) {
  // expected-error@+1 {{contraction sizes differ: lhs is 8x16 and rhs is 8x32}}
  %0 = coco.matmul %a, %b : tensor<8x16xf32, #coco.replicated>, tensor<8x32xf32, #coco.replicated> -> tensor<8x32xf32, #coco.replicated>
  return
}

// -----

func.func @matmul_result_shape(%a: tensor<8x16xf32, #coco.replicated>, %b: tensor<16x32xf32, #coco.replicated>) {
  // expected-error@+1 {{result shape must be 8x32 for lhs 8x16 and rhs 16x32, found 8x16}}
  %0 = coco.matmul %a, %b : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.replicated> -> tensor<8x16xf32, #coco.replicated>
  return
}

// -----

func.func @matmul_rank(%a: tensor<2x8x16xf32, #coco.replicated>, %b: tensor<16x32xf32, #coco.replicated>) {
  // expected-error@+1 {{rhs must be 2-D (or all operands 3-D, batched), found shape 16x32}}
  %0 = coco.matmul %a, %b : tensor<2x8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.replicated> -> tensor<8x32xf32, #coco.replicated>
  return
}

// -----

func.func @matmul_elements(%a: tensor<8x16xf16, #coco.replicated>, %b: tensor<16x32xf32, #coco.replicated>) {
  // expected-error@+1 {{element types must match: lhs f16, rhs f32, result f32}}
  %0 = coco.matmul %a, %b : tensor<8x16xf16, #coco.replicated>, tensor<16x32xf32, #coco.replicated> -> tensor<8x32xf32, #coco.replicated>
  return
}

// -----

func.func @dropout_probability(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{prob must be in [0, 1), found 1}}
  %0 = coco.dropout %x prob 1.0 seed 1 : tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @layer_norm_over_sliced_dimension(%x: tensor<4x8xf32, #coco.sliced<1>>, %g: tensor<8xf32, #coco.replicated>, %b: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{normalises over dimension 1, which the input is sliced along}}
  %0 = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x8xf32, #coco.sliced<1>>, tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated> -> tensor<4x8xf32, #coco.sliced<1>>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<4x8xf32, #coco.replicated>, %g: tensor<4xf32, #coco.sliced<0>>, %b: tensor<8xf32, #coco.replicated>) {
  // expected-error@+2 {{gamma must be 1-D with the size of the last input dimension (8), found 4}}
  // expected-error@+1 {{expects gamma layout #coco.replicated, found #coco.sliced<0>}}
  %0 = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x8xf32, #coco.replicated>, tensor<4xf32, #coco.sliced<0>>, tensor<8xf32, #coco.replicated> -> tensor<4x8xf32, #coco.replicated>
  return
}

// -----

func.func @layer_norm_result(%x: tensor<4x8xf32, #coco.replicated>, %g: tensor<8xf32, #coco.replicated>, %b: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{expects result layout #coco.replicated for operand layouts #coco.replicated, #coco.replicated, #coco.replicated, found #coco.local}}
  %0 = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated> -> tensor<4x8xf32, #coco.local>
  return
}

// -----

func.func @layer_norm_result_shape(%x: tensor<4x8xf32, #coco.replicated>, %g: tensor<8xf32, #coco.replicated>, %b: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result must have the input's shape 4x8 and element type f32}}
  %0 = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated> -> tensor<8x4xf32, #coco.replicated>
  return
}

// -----

func.func @norm_of_slices(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{cannot take the norm of a #coco.sliced<0> tensor without communication}}
  %0 = coco.norm %x : tensor<8xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  return
}

// -----

func.func @norm_not_scalar(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result must be a 0-d tensor, found shape 8}}
  %0 = coco.norm %x : tensor<8xf32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @average_of_slices(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{avg of a sliced tensor is not the average of per-slice averages}}
  %0 = coco.reduce_elements avg %x : tensor<8xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  return
}

// -----

func.func @partial_sum_is_local(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{expects result layout #coco.local for operand layout #coco.sliced<0>, found #coco.replicated}}
  %0 = coco.reduce_elements sum %x : tensor<8xf32, #coco.sliced<0>> -> tensor<f32, #coco.replicated>
  return
}

// -----

func.func @cast_changes_layout(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{expects result layout #coco.replicated for operand layout #coco.replicated, found #coco.local}}
  %0 = coco.cast %x : tensor<8xf32, #coco.replicated> -> tensor<8xf16, #coco.local>
  return
}

// -----

func.func @cast_shape(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{changes only the element type: result must have shape 8}}
  %0 = coco.cast %x : tensor<8xf32, #coco.replicated> -> tensor<4xf16, #coco.replicated>
  return
}

// -----

func.func @cast_integer(%x: tensor<8xi32, #coco.replicated>) {
  // expected-error@+1 {{operand element type must be a float (f16, bf16, f32, f64), found i32}}
  %0 = coco.cast %x : tensor<8xi32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @expand_shape(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result shape 8x4 must end with the operand shape 8 (new dimensions go in front)}}
  %0 = coco.expand %x : tensor<8xf32, #coco.replicated> -> tensor<8x4xf32, #coco.replicated>
  return
}

// -----

func.func @expand_moves_slice(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{expects result layout #coco.sliced<1> for operand layout #coco.sliced<0>, found #coco.sliced<0>}}
  %0 = coco.expand %x : tensor<8xf32, #coco.sliced<0>> -> tensor<4x8xf32, #coco.sliced<0>>
  return
}

// -----

func.func @update_of_a_temporary(%x: tensor<8xf32, #coco.replicated>) {
  %y = math.sqrt %x : tensor<8xf32, #coco.replicated>
  // expected-error@+1 {{target must be an argument of the enclosing function}}
  coco.update %y, %x : tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @update_twice(%x: tensor<8xf32, #coco.replicated>) {
  %y = math.sqrt %x : tensor<8xf32, #coco.replicated>
  %z = math.exp %x : tensor<8xf32, #coco.replicated>
  coco.update %x, %y : tensor<8xf32, #coco.replicated>
  // expected-error@+1 {{updates argument #0 a second time (first at dialects/coco/invalid.mlir:}}
  coco.update %x, %z : tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @update_type(%x: tensor<8xf32, #coco.replicated>, %y: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{failed to verify that all of {target, value} have same type}}
  "coco.update"(%x, %y) : (tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.local>) -> ()
  return
}

// -----

func.func @collective_in_fused_kernel(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.fused_kernel' op must hold computations only, found 'coco.all_reduce'}}
  %0 = coco.fused_kernel -> tensor<8xf32, #coco.replicated> {
    %r = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
    coco.yield %r : tensor<8xf32, #coco.replicated>
  }
  return
}

// -----

func.func @fused_collective_without_gather(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+2 {{may only communicate with coco.reduce_scatter, coco.all_gather and a coco.all_reduce of a 0-d tensor, found 'coco.all_reduce'}}
  // expected-error@+1 {{must contain a 'coco.all_gather'}}
  %0 = coco.fused_collective -> tensor<8xf32, #coco.replicated> {
    %s = coco.reduce_scatter sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.sliced<0>>
    %r = coco.all_reduce sum %x : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
    coco.yield %r : tensor<8xf32, #coco.replicated>
  }
  return
}

// -----

func.func @overlap_without_collective(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+2 {{chunks must be at least 1, found 0}}
  // expected-error@+1 {{must contain at least one computation and one collective to overlap}}
  %0 = coco.overlap chunks 0 -> tensor<8xf32, #coco.replicated> {
    %y = math.sqrt %x : tensor<8xf32, #coco.replicated>
    coco.yield %y : tensor<8xf32, #coco.replicated>
  }
  return
}

// -----

func.func @yield_count(%x: tensor<8xf32, #coco.replicated>) {
  %0 = coco.fused_kernel -> tensor<8xf32, #coco.replicated> {
    // expected-error@+1 {{yields 0 values, but its parent 'coco.fused_kernel' has 1 results}}
    coco.yield
  }
  return
}

// -----

func.func @yield_type(%x: tensor<8xf32, #coco.replicated>) {
  %0 = coco.fused_kernel -> tensor<8xf32, #coco.local> {
    %y = math.sqrt %x : tensor<8xf32, #coco.replicated>
    // expected-error@+1 {{value #0 has type tensor<8xf32, #coco.replicated>, but parent result #0 has type tensor<8xf32, #coco.local>}}
    coco.yield %y : tensor<8xf32, #coco.replicated>
  }
  return
}

// -----

func.func @yield_outside_region(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{expects parent op to be one of 'coco.fused_kernel, coco.fused_collective, coco.overlap'}}
  coco.yield %x : tensor<8xf32, #coco.replicated>
}

// -----

// Most arith and math ops require one type for all operands (so one layout);
// ops that only require one shape get the layout check from coco-verify.
func.func @mixed_layouts(%a: tensor<8xf32, #coco.replicated>, %b: tensor<8xi32, #coco.local>) {
  // expected-error@+1 {{'math.fpowi' op mixes layouts #coco.replicated and #coco.local}}
  %0 = math.fpowi %a, %b : tensor<8xf32, #coco.replicated>, tensor<8xi32, #coco.local>
  return
}

// -----

func.func @mixed_layouts_in_arith(%a: tensor<8xf32, #coco.replicated>, %b: tensor<8xf32, #coco.local>) {
  // expected-error@+2 {{use of value '%b' expects different type than prior uses}}
  // expected-error@+1 {{%b is #coco.local where it is defined but used as #coco.replicated: a value changes layout only through an op; coco.all_reduce combines per-rank values}}
  %0 = arith.addf %a, %b : tensor<8xf32, #coco.replicated>
  return
}

// -----

// expected-error@+1 {{stage 2 is outside 0..2}}
coco.process_group @s2 stage 2 of 2

// -----

coco.process_group @a stage 0 of 2
// expected-error@+1 {{stage 0 is already named @a}}
coco.process_group @b stage 0 of 2

// -----

coco.process_group @a stage 0 of 2
// expected-error@+1 {{splits the world into 3 stages but another process group splits it into 2}}
coco.process_group @b stage 1 of 3

// -----

// expected-error@+1 {{'coco.group' names @nowhere, which is not a coco.process_group}}
func.func @unknown_group() attributes {coco.group = @nowhere} {
  return
}

// -----

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
// expected-error@+1 {{@send_outside_a_group runs on no process group, but the program is split into pipeline stages}}
func.func @send_outside_a_group(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{must be in a function that runs on a process group}}
  coco.send %x to @stage1 : tensor<8xf32, #coco.replicated>
  return
}

// -----

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @send_to_itself(%x: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  // expected-error@+1 {{peer @stage0 is the group this function runs on}}
  coco.send %x to @stage0 : tensor<8xf32, #coco.replicated>
  // expected-error@+1 {{peer @stage9 is not a coco.process_group}}
  coco.send %x to @stage9 : tensor<8xf32, #coco.replicated>
  return
}

// -----

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @unmatched_send(%x: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  // expected-error@+1 {{has no matching coco.recv from @stage0 in a function on @stage1}}
  coco.send %x to @stage1 : tensor<8xf32, #coco.replicated>
  return
}

// -----

coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @producer(%x: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  coco.send %x to @stage1 : tensor<8xf32, #coco.replicated>
  return
}
func.func @consumer() attributes {coco.group = @stage1} {
  // expected-error@+1 {{receives tensor<4xf32, #coco.replicated> but the matching coco.send #0 from @stage0}}
  %0 = coco.recv from @stage0 : tensor<4xf32, #coco.replicated>
  // expected-error@+1 {{has no matching coco.send from a function on @stage0 (receive #1 of this pair)}}
  %1 = coco.recv from @stage0 : tensor<8xf32, #coco.replicated>
  return
}

// -----

// A whole-world function beside the stages would never run.
coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @forward(%x: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  return
}
// expected-error@+1 {{@optimizer runs on no process group, but the program is split into pipeline stages, and only the stages' functions run; name its stage with 'coco.group = @<stage>' or move it into a program of its own}}
func.func @optimizer(%w: tensor<8xf32, #coco.replicated>) {
  return
}

// -----

// A stage's one function is its whole step.
coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @forward(%x: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  return
}
// expected-error@+1 {{@stage0 already runs @forward (at}}
func.func @step(%w: tensor<8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  return
}

// -----

// expected-error@+1 {{needs at least 1 stage, found 0}}
coco.process_group @nothing stage 0 of 0

// -----

// expected-error@+1 {{'coco.group' must be a symbol reference to a coco.process_group}}
func.func @group_as_string() attributes {coco.group = "stage0"} {
  return
}

// -----

func.func @all_to_all_of_local(%x: tensor<8x8xf32, #coco.local>) {
  // expected-error@+1 {{'coco.all_to_all' op expects operand layout #coco.sliced<d>, found #coco.local}}
  %0 = coco.all_to_all %x : tensor<8x8xf32, #coco.local> -> tensor<8x8xf32, #coco.sliced<1>>
  return
}

// -----

func.func @layer_norm_of_scalar(%x: tensor<f32, #coco.replicated>, %g: tensor<1xf32, #coco.replicated>) {
  // expected-error@+1 {{input must have at least one dimension}}
  %0 = coco.layer_norm %x, %g, %g eps 1.0e-5 : tensor<f32, #coco.replicated>, tensor<1xf32, #coco.replicated>, tensor<1xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return
}

// -----

func.func @layer_norm_parameter_element(%x: tensor<4x8xf32, #coco.replicated>, %g: tensor<8xf16, #coco.replicated>, %b: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{gamma element type f16 differs from input element type f32}}
  %0 = coco.layer_norm %x, %g, %b eps 1.0e-5 : tensor<4x8xf32, #coco.replicated>, tensor<8xf16, #coco.replicated>, tensor<8xf32, #coco.replicated> -> tensor<4x8xf32, #coco.replicated>
  return
}

// -----

func.func @norm_of_integers(%x: tensor<8xi32, #coco.replicated>) {
  // expected-error@+1 {{needs a floating-point tensor, found element type i32}}
  %0 = coco.norm %x : tensor<8xi32, #coco.replicated> -> tensor<i32, #coco.replicated>
  return
}

// -----

func.func @reduce_elements_element(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result element type f16 differs from operand element type f32}}
  %0 = coco.reduce_elements sum %x : tensor<8xf32, #coco.replicated> -> tensor<f16, #coco.replicated>
  return
}

// -----

func.func @expand_element(%x: tensor<8xf32, #coco.replicated>) {
  // expected-error@+1 {{result element type f16 differs from operand element type f32}}
  %0 = coco.expand %x : tensor<8xf32, #coco.replicated> -> tensor<2x8xf16, #coco.replicated>
  return
}

// -----

func.func @transpose_shape(%k: tensor<64x32xf32, #coco.replicated>) {
  // expected-error@+1 {{transposes the last two dimensions of 2-D or 3-D tensors: result shape must be the operand's swapped, found 64x32 -> 64x32}}
  %kt = coco.transpose %k : tensor<64x32xf32, #coco.replicated> -> tensor<64x32xf32, #coco.replicated>
  return
}

// -----

func.func @transpose_layout(%k: tensor<64x32xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{expects result layout #coco.sliced<0> for operand layout #coco.sliced<1>, found #coco.sliced<1>}}
  %kt = coco.transpose %k : tensor<64x32xf32, #coco.sliced<1>> -> tensor<32x64xf32, #coco.sliced<1>>
  return
}

// -----

func.func @softmax_over_slices(%s: tensor<8x8xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{normalises over dimension 1, which the input is sliced along; all_gather it first}}
  %p = coco.softmax %s : tensor<8x8xf32, #coco.sliced<1>>
  return
}

// -----

func.func @split_heads_shape(%q: tensor<64x256xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{needs [S, heads * d] and [heads, S, d], found 64x256 and 8x64x16}}
  %qh = coco.split_heads %q : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x16xf32, #coco.sliced<0>>
  return
}

// -----

func.func @split_heads_of_rows(%q: tensor<64x256xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{'coco.split_heads' op expects operand layout #coco.sliced<1>, found #coco.sliced<0>}}
  %qh = coco.split_heads %q : tensor<64x256xf32, #coco.sliced<0>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  return
}

// -----

func.func @batched_matmul_shapes(%a: tensor<8x64x32xf32, #coco.sliced<0>>, %b: tensor<4x32x64xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{batched product needs [B, M, K] x [B, K, N] -> [B, M, N], found 8x64x32 x 4x32x64 -> 8x64x64}}
  %s = coco.matmul %a, %b : tensor<8x64x32xf32, #coco.sliced<0>>, tensor<4x32x64xf32, #coco.sliced<0>> -> tensor<8x64x64xf32, #coco.sliced<0>>
  return
}

// -----

func.func @batched_matmul_layouts(%a: tensor<8x64x32xf32, #coco.sliced<1>>, %b: tensor<8x32x64xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{has no layout rule for lhs #coco.sliced<1> and rhs #coco.sliced<0>}}
  %s = coco.matmul %a, %b : tensor<8x64x32xf32, #coco.sliced<1>>, tensor<8x32x64xf32, #coco.sliced<0>> -> tensor<8x64x64xf32, #coco.local>
  return
}

// -----

// Both stages receive first: each waits for the other's send.
coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2
func.func @recv_first_a(%x: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.replicated> attributes {coco.group = @stage0} {
  // expected-error@+1 {{the stages deadlock: @stage0 waits here for a value from @stage1 that is never sent before it, while @stage1 waits at dialects/coco/invalid.mlir:}}
  %y = coco.recv from @stage1 : tensor<8xf32, #coco.replicated>
  coco.send %x to @stage1 : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}
func.func @recv_first_b(%x: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.replicated> attributes {coco.group = @stage1} {
  // expected-error@+1 {{the stages deadlock: @stage1 waits here for a value from @stage0}}
  %y = coco.recv from @stage0 : tensor<8xf32, #coco.replicated>
  coco.send %x to @stage0 : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}


// -----

func.func @argmax_along_the_sliced_dimension(%p: tensor<48x24xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{compares along dimension 1, which the input is sliced along; all_gather it first}}
  %e = coco.argmax %p {dim = 1 : i64} : tensor<48x24xf32, #coco.sliced<1>> -> tensor<48xi64, #coco.sliced<0>>
  return
}

// -----

func.func @argmax_result(%p: tensor<48x24xf32, #coco.replicated>) {
  // expected-error@+2 {{result must have the operand's shape without dimension 1: 48, found 24}}
  // expected-error@+1 {{result element type must be i64 (indices), found i32}}
  %e = coco.argmax %p {dim = 1 : i64} : tensor<48x24xf32, #coco.replicated> -> tensor<24xi32, #coco.replicated>
  return
}

// -----

func.func @argmax_dim_out_of_range(%p: tensor<48x24xf32, #coco.replicated>) {
  // expected-error@+1 {{dim 2 is not a dimension of a rank-2 tensor}}
  %e = coco.argmax %p {dim = 2 : i64} : tensor<48x24xf32, #coco.replicated> -> tensor<48xi64, #coco.replicated>
  return
}

// -----

func.func @reduce_dims_not_increasing(%p: tensor<4x8x2xf32, #coco.replicated>) {
  // expected-error@+1 {{dims [2, 0] must be strictly increasing}}
  %r = coco.reduce_elements sum %p {dims = array<i64: 2, 0>} : tensor<4x8x2xf32, #coco.replicated> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

func.func @reduce_dims_result_shape(%p: tensor<4x8x2xf32, #coco.replicated>) {
  // expected-error@+1 {{result must have the operand's shape without dims [1]: 4x2, found 4}}
  %r = coco.reduce_elements sum %p {dims = array<i64: 1>} : tensor<4x8x2xf32, #coco.replicated> -> tensor<4xf32, #coco.replicated>
  return
}

// -----

func.func @avg_over_a_sliced_dimension(%p: tensor<4x8xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{avg of a sliced tensor is not the average of per-slice averages; use sum, then divide}}
  %r = coco.reduce_elements avg %p {dims = array<i64: 1>} : tensor<4x8xf32, #coco.sliced<1>> -> tensor<4xf32, #coco.local>
  return
}

// -----

func.func @expand_dims_count(%x: tensor<4x8xf32, #coco.replicated>) {
  // expected-error@+1 {{dims needs one entry per operand dimension (2), found 1}}
  %e = coco.expand %x {dims = array<i64: 1>} : tensor<4x8xf32, #coco.replicated> -> tensor<3x4x8xf32, #coco.replicated>
  return
}

// -----

func.func @expand_dims_sizes(%x: tensor<4x8xf32, #coco.replicated>) {
  // expected-error@+1 {{operand dimension 1 (size 8) must equal result dimension 1 (size 3)}}
  %e = coco.expand %x {dims = array<i64: 0, 1>} : tensor<4x8xf32, #coco.replicated> -> tensor<4x3x8xf32, #coco.replicated>
  return
}

// -----

func.func @expand_dims_layout(%x: tensor<4x8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{expects result layout #coco.sliced<1> for operand layout #coco.sliced<0>, found #coco.sliced<0>}}
  %e = coco.expand %x {dims = array<i64: 1, 2>} : tensor<4x8xf32, #coco.sliced<0>> -> tensor<3x4x8xf32, #coco.sliced<0>>
  return
}

// -----

func.func @gather_from_sliced(%x: tensor<8x4xf32, #coco.sliced<0>>, %i: tensor<8xi64, #coco.replicated>) {
  // expected-error@+1 {{gathers along dimension 0, which the source is sliced along; all_gather it first}}
  %g = coco.gather %x[%i] : tensor<8x4xf32, #coco.sliced<0>>, tensor<8xi64, #coco.replicated> -> tensor<8x4xf32, #coco.replicated>
  return
}

// -----

func.func @gather_shapes(%x: tensor<8x4xf32, #coco.replicated>, %i: tensor<6xi32, #coco.replicated>) {
  // expected-error@+1 {{indices must be a 1-D tensor of i64, found tensor<6xi32, #coco.replicated>}}
  %g = coco.gather %x[%i] : tensor<8x4xf32, #coco.replicated>, tensor<6xi32, #coco.replicated> -> tensor<6x4xf32, #coco.replicated>
  return
}

// -----

func.func @gather_sliced_both(%x: tensor<8x4xf32, #coco.sliced<1>>, %i: tensor<8xi64, #coco.sliced<0>>) {
  // expected-error@+1 {{gathers from a source sliced along dimension 1 with sliced indices; replicate the indices}}
  %g = coco.gather %x[%i] : tensor<8x4xf32, #coco.sliced<1>>, tensor<8xi64, #coco.sliced<0>> -> tensor<8x4xf32, #coco.sliced<1>>
  return
}

// -----

func.func @gather_dim_out_of_range(%x: tensor<8x4xf32, #coco.replicated>, %i: tensor<6xi64, #coco.replicated>) {
  // expected-error@+1 {{dim 2 is not a dimension of a rank-2 tensor}}
  %g = coco.gather %x[%i] dim 2 : tensor<8x4xf32, #coco.replicated>, tensor<6xi64, #coco.replicated> -> tensor<8x6xf32, #coco.replicated>
  return
}

// -----

func.func @gather_dim_shape(%x: tensor<8x4xf32, #coco.replicated>, %i: tensor<6xi64, #coco.replicated>) {
  // expected-error@+1 {{result must have the indexed tensor's shape with dimension 1 the indices' length: 8x6, found 6x4}}
  %g = coco.gather %x[%i] dim 1 : tensor<8x4xf32, #coco.replicated>, tensor<6xi64, #coco.replicated> -> tensor<6x4xf32, #coco.replicated>
  return
}

// -----

func.func @gather_dim_sliced_along(%x: tensor<8x4xf32, #coco.sliced<1>>, %i: tensor<6xi64, #coco.replicated>) {
  // expected-error@+1 {{gathers along dimension 1, which the source is sliced along; all_gather it first}}
  %g = coco.gather %x[%i] dim 1 : tensor<8x4xf32, #coco.sliced<1>>, tensor<6xi64, #coco.replicated> -> tensor<8x6xf32, #coco.sliced<1>>
  return
}

// -----

func.func @scatter_layouts(%d: tensor<8x4xf32, #coco.replicated>, %i: tensor<6xi64, #coco.local>, %u: tensor<6x4xf32, #coco.local>) {
  // expected-error@+1 {{expects dest, indices and updates in one layout, #coco.local or #coco.replicated, found #coco.replicated, #coco.local, #coco.local}}
  %s = coco.scatter_add %d[%i], %u : tensor<8x4xf32, #coco.replicated>, tensor<6xi64, #coco.local>, tensor<6x4xf32, #coco.local> -> tensor<8x4xf32, #coco.replicated>
  return
}

// -----

func.func @scatter_update_rows(%d: tensor<8x4xf32, #coco.local>, %i: tensor<6xi64, #coco.local>, %u: tensor<6x3xf32, #coco.local>) {
  // expected-error@+1 {{updates must have the indexed tensor's shape with dimension 0 the indices' length: 6x4, found 6x3}}
  %s = coco.scatter_add %d[%i], %u : tensor<8x4xf32, #coco.local>, tensor<6xi64, #coco.local>, tensor<6x3xf32, #coco.local> -> tensor<8x4xf32, #coco.local>
  return
}

// -----

// A ZeRO-style clip that forgets its all_reduce: each rank's own norm,
// read out and put back as if every rank held the same one.
func.func @laundered_norm(%g: tensor<64xf32, #coco.sliced<0>>) -> tensor<64xf32, #coco.sliced<0>> {
  %sq = arith.mulf %g, %g : tensor<64xf32, #coco.sliced<0>>
  %part = coco.reduce_elements sum %sq : tensor<64xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
  %n = tensor.extract %part[] : tensor<f32, #coco.local>
  %one = arith.constant 1.0 : f32
  %scale = arith.addf %n, %one : f32
  // expected-error@+1 {{result #0 is #coco.sliced<0>, but it is built from a scalar that may differ between ranks (read out of a #coco.local tensor at}}
  %s = tensor.splat %scale : tensor<64xf32, #coco.sliced<0>>
  // expected-error@+1 {{result #0 is #coco.replicated, but it is built from a scalar that may differ between ranks}}
  %r = tensor.splat %n : tensor<f32, #coco.replicated>
  %y = arith.divf %g, %s : tensor<64xf32, #coco.sliced<0>>
  return %y : tensor<64xf32, #coco.sliced<0>>
}

// -----

// A per-rank condition choosing between replicated values.
func.func @per_rank_select(%flag: tensor<i1, #coco.local>, %a: tensor<8xf32, #coco.replicated>, %b: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.replicated> {
  %c = tensor.extract %flag[] : tensor<i1, #coco.local>
  // expected-error@+1 {{result #0 is #coco.replicated, but it is built from a scalar that may differ between ranks}}
  %y = arith.select %c, %a, %b : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}

// -----

func.func @extract_at_index(%x: tensor<8xf32, #coco.replicated>) {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{reads an element of a 1-d tensor; coco reads scalars out of 0-d tensors only}}
  %v = tensor.extract %x[%c0] : tensor<8xf32, #coco.replicated>
  return
}

// -----

// expected-error@+2 {{argument #0 has element type i8, which no coco backend runs}}
// expected-error@+1 {{argument #1 has type i8, which no coco backend takes}}
func.func @byte_collective(%g: tensor<64xi8, #coco.local>, %n: i8) {
  // expected-error@+2 {{operand #0 has element type i8, which no coco backend runs}}
  // expected-error@+1 {{result #0 has element type i8, which no coco backend runs}}
  %y = coco.all_reduce sum %g : tensor<64xi8, #coco.local> -> tensor<64xi8, #coco.replicated>
  return
}

// -----

#batch = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>
#cols = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>
#rows = #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>
#partial = #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.local}>
#grads = #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>
coco.mesh @grid [dp = 2, tp = 2]
func.func @mesh_rules(%x: tensor<8x16xf32, #batch>, %w1: tensor<16x32xf32, #cols>, %w2: tensor<32x16xf32, #rows>, %g: tensor<16x32xf32, #grads>) {
  // expected-error@+1 {{along axis "tp": expects result layout #coco.sliced<1> for operand layouts #coco.replicated, #coco.sliced<1>, found #coco.replicated}}
  %h = coco.matmul %x, %w1 : tensor<8x16xf32, #batch>, tensor<16x32xf32, #cols> -> tensor<8x32xf32, #batch>
  // expected-error@+1 {{communicates over "tp", so along axis "dp" the result keeps the operand's layout #coco.replicated, found #coco.local}}
  %a = coco.all_gather %w1 over "tp" : tensor<16x32xf32, #cols> -> tensor<16x32xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
  // expected-error@+1 {{spans the whole group, which takes a plain layout; name the axis it communicates over (`over "dp"`)}}
  %r = coco.all_reduce sum %g : tensor<16x32xf32, #grads> -> tensor<16x32xf32, #cols>
  // expected-error@+1 {{communicates over axis "pp", which the mesh [dp = 2, tp = 2] does not have}}
  %s = coco.all_reduce sum %g over "pp" : tensor<16x32xf32, #grads> -> tensor<16x32xf32, #cols>
  // expected-error@+1 {{along axis "dp": expects result layout #coco.replicated for operand layout #coco.local, found #coco.local}}
  %t = coco.all_reduce sum %g over "dp" : tensor<16x32xf32, #grads> -> tensor<16x32xf32, #grads>
  return
}

// -----

coco.mesh @grid [dp = 2, tp = 2]
// expected-error@+1 {{argument #0 gives no layout along axis "tp" of the mesh [dp = 2, tp = 2]}}
func.func @missing_axis(%x: tensor<8xf32, #coco.mesh<{dp = #coco.local}>>) {
  return
}

// -----

// expected-error@+1 {{argument #0 has a #coco.mesh layout, but the program declares no coco.mesh}}
func.func @no_mesh(%x: tensor<8xf32, #coco.mesh<{dp = #coco.local}>>) {
  return
}

// -----

func.func @axis_without_mesh(%x: tensor<8xf32, #coco.local>) {
  // expected-error@+1 {{communicates over axis "dp", but the program declares no coco.mesh}}
  %0 = coco.all_reduce sum %x over "dp" : tensor<8xf32, #coco.local> -> tensor<8xf32, #coco.replicated>
  return
}

// -----

// expected-error@+1 {{names axis "dp" twice}}
coco.mesh @twice [dp = 2, dp = 2]

// -----

coco.mesh @grid [dp = 2, tp = 2]
// expected-error@+1 {{a program has one coco.mesh, and @grid is one already}}
coco.mesh @again [dp = 4]

// -----

// Rows split over dp, then within each dp block over tp: only tp, the
// inner axis, can gather them back.
coco.mesh @grid [dp = 2, tp = 2]
func.func @outer_regather(%x: tensor<8xf32, #coco.sliced<0>>) {
  // expected-error@+1 {{dimension 0 is also sliced over axis "tp", inside "dp" in the mesh [dp = 2, tp = 2]; along "dp" this op can only change a dimension's innermost slicing}}
  %0 = coco.all_gather %x over "dp" : tensor<8xf32, #coco.sliced<0>> -> tensor<8xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>
  return
}

// -----

// The same for a slice: dp's blocks would not lie inside tp's.
coco.mesh @grid [dp = 2, tp = 2]
func.func @outer_slice(%x: tensor<8xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>) {
  // expected-error@+1 {{dimension 0 is also sliced over axis "tp", inside "dp" in the mesh [dp = 2, tp = 2]; along "dp" this op can only change a dimension's innermost slicing}}
  %0 = coco.slice %x : tensor<8xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>> -> tensor<8xf32, #coco.sliced<0>>
  return
}

// -----

// A per-replica norm put back as if every data-parallel replica agreed.
coco.mesh @grid [dp = 2, tp = 2]
func.func @replica_norm(%n: tensor<f32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>) {
  %v = tensor.extract %n[] : tensor<f32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
  // This one is fine: local along dp, the axis it varies on.
  %ok = tensor.splat %v : tensor<4xf32, #coco.mesh<{dp = #coco.local, tp = #coco.replicated}>>
  // expected-error@+1 {{result #0 is #coco.replicated, but it is built from a scalar that may differ between ranks (read out of a #coco.mesh<{dp = #coco.local, tp = #coco.replicated}> tensor at}}
  %bad = tensor.splat %v : tensor<4xf32, #coco.replicated>
  return
}

// -----

func.func @cumsum_rules(%x: tensor<8x4xf32, #coco.sliced<0>>, %b: tensor<8xi1, #coco.local>) {
  // expected-error@+1 {{sums along dimension 0, which the input is sliced along; all_gather it first}}
  %0 = coco.cumsum %x dim 0 : tensor<8x4xf32, #coco.sliced<0>> -> tensor<8x4xf32, #coco.sliced<0>>
  // expected-error@+1 {{dim 2 is not a dimension of a rank-2 tensor}}
  %1 = coco.cumsum %x dim 2 : tensor<8x4xf32, #coco.sliced<0>> -> tensor<8x4xf32, #coco.sliced<0>>
  // expected-error@+1 {{sums numbers; an i1 operand has none}}
  %2 = coco.cumsum %b dim 0 : tensor<8xi1, #coco.local> -> tensor<8xi1, #coco.local>
  return
}

// -----

// expected-error@+1 {{spans more than 65536 ranks, the most any world has}}
coco.mesh @huge [dp = 65536, tp = 65536]

// -----

// Axis names that are not identifiers are quoted in messages.
coco.mesh @grid ["d\"p" = 2, "t p" = 2]
// expected-error@+1 {{argument #0 gives no layout along axis "t p" of the mesh ["d\"p" = 2, "t p" = 2]}}
func.func @odd_names(%x: tensor<8xf32, #coco.mesh<{"d\"p" = #coco.local}>>) {
  return
}
