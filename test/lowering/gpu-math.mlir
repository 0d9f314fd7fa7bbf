// Every math op the interpreter knows, on the GPU route. With libdevice
// (--cuda-path) each is NVIDIA's function, inlined, and ptxas assembles the
// module for sm_80 and sm_90; sqrt stays sqrt.rn (coco's definition wins
// over libdevice's sqrt.approx). Without libdevice, coco's fallback PTX
// defines abs, ceil, floor, exp and tanh, and a function it does not
// define is an error that names the flag. docs/gpu.md has each op's
// error bound.
// RUN: coco-translate %s --entry all --emit=ptx --chip sm_80 --cuda-path %cuda --resource-usage -o %t 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: coco-translate %s --entry all --emit=ptx --cuda-path %cuda --resource-usage -o %t 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: coco-translate %s --entry all --emit=ptx --cuda-path %cuda | FileCheck %s --check-prefix=LIB
// RUN: not coco-translate %s --entry all --emit=ptx 2>&1 | FileCheck %s --check-prefix=FALLBACK
// RUN: coco-translate %s --emit=ptx --entry exact | FileCheck %s --check-prefix=EXACT

func.func @all(%x: tensor<4096xf32, #coco.replicated>, %y: tensor<4096xf32, #coco.replicated>)
    -> tensor<4096xf32, #coco.replicated> {
  %a = math.exp %x : tensor<4096xf32, #coco.replicated>
  %b = math.tanh %a : tensor<4096xf32, #coco.replicated>
  %c = math.log %b : tensor<4096xf32, #coco.replicated>
  %d = math.rsqrt %c : tensor<4096xf32, #coco.replicated>
  %e = math.powf %d, %y : tensor<4096xf32, #coco.replicated>
  %f = math.sqrt %e : tensor<4096xf32, #coco.replicated>
  %g = math.floor %f : tensor<4096xf32, #coco.replicated>
  %h = math.ceil %g : tensor<4096xf32, #coco.replicated>
  %i = math.absf %h : tensor<4096xf32, #coco.replicated>
  return %i : tensor<4096xf32, #coco.replicated>
}

func.func @exact(%x: tensor<4096xf64, #coco.replicated>) -> tensor<4096xf64, #coco.replicated> {
  %a = math.floor %x : tensor<4096xf64, #coco.replicated>
  %b = math.ceil %a : tensor<4096xf64, #coco.replicated>
  %c = math.absf %b : tensor<4096xf64, #coco.replicated>
  %d = math.sqrt %c : tensor<4096xf64, #coco.replicated>
  return %d : tensor<4096xf64, #coco.replicated>
}

// SM80: resource usage on sm_80 (ptxas -v):
// SM80: all_k0_kernel {{[0-9]+}} 0 0 0 0
// SM90: resource usage on sm_90 (ptxas -v):
// SM90: all_k0_kernel {{[0-9]+}} 0 0 0 0

// LIB-NOT: .func
// LIB-NOT: .extern
// One kernel per op here (each is its own computation outside a fused
// region): exp, tanh, log, rsqrt, pow, sqrt, floor, ceil, abs.
// LIB: .visible .entry all_k0_kernel(
// LIB: ex2.approx.ftz.f32
// LIB: .visible .entry all_k3_kernel(
// LIB: rsqrt.approx.f32
// LIB: .visible .entry all_k5_kernel(
// LIB-NOT: sqrt.approx
// LIB: sqrt.rn.f32
// LIB: .visible .entry all_k6_kernel(
// LIB: cvt.rmi.f32.f32
// LIB: .visible .entry all_k7_kernel(
// LIB: cvt.rpi.f32.f32

// FALLBACK: coco-translate: error: a kernel calls the libdevice function __nv_logf, which coco's built-in PTX does not define: link libdevice with --cuda-path

// EXACT-NOT: .extern
// EXACT: .func {{.*}} __nv_floor(
// EXACT: cvt.rmi.f64.f64
// EXACT: .func {{.*}} __nv_ceil(
// EXACT: cvt.rpi.f64.f64
// EXACT: .visible .entry exact_k0_kernel(
// EXACT: sqrt.rn.f64
