// .npy inputs (runtime/inputs/npy-*/npy.arg0.npy) are parsed, not searched:
// a header whose first 'shape' is inside a string value was read as that
// shape, a repeated key was read as its first value, and a shape whose size
// overflows panicked. Now each is a clear error, in the interpreter and the
// executor alike (both read through coco_base::npy), as is a file longer
// than its header says.
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/inputs/npy-decoy 2>&1 | FileCheck %s --check-prefix=DECOY
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/inputs/npy-duplicate 2>&1 | FileCheck %s --check-prefix=DUPLICATE
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/inputs/npy-huge 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not coco-run %s --backend reference --ranks 2 --inputs runtime/inputs/npy-long 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not coco-run %s --ranks 2 --inputs runtime/inputs/npy-decoy 2>&1 | FileCheck %s --check-prefix=EXEC

// DECOY: coco-run: error: runtime/inputs/npy-decoy/npy.arg0.npy: not a valid .npy file: header byte 1: unknown key 'note' (a .npy header has 'descr', 'fortran_order' and 'shape')
// DUPLICATE: coco-run: error: runtime/inputs/npy-duplicate/npy.arg0.npy: not a valid .npy file: header byte 56: key 'shape' appears twice
// HUGE: coco-run: error: runtime/inputs/npy-huge/npy.arg0.npy: not a valid .npy file: shape [4611686018427387904, 4] has more bytes of f32 than one array can hold
// LONG: coco-run: error: runtime/inputs/npy-long/npy.arg0.npy: not a valid .npy file: shape [4] needs 16 bytes of data, the file has 20
// EXEC: coco-exec: rank {{[01]}}: error: input 'npy.arg0': runtime/inputs/npy-decoy/npy.arg0.npy: not a valid .npy file: header byte 1: unknown key 'note'
func.func @npy(%x: tensor<4xf32, #coco.replicated>) -> tensor<4xf32, #coco.replicated> {
  return %x : tensor<4xf32, #coco.replicated>
}
