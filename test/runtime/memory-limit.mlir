// A program whose buffers no machine holds (8 PB on each rank) is refused
// before coco-run prepares its inputs or the executor allocates anything,
// with the buffer, its size and the limit (COCO_MAX_MEMORY_BYTES, by default
// the machine's memory; docs/bundle.md). It used to abort coco-run
// ("memory allocation of 800000000000 bytes failed") at 800 GB already.
// RUN: not coco-run %s --ranks 1 2>&1 | FileCheck %s
// The reference interpreter checks the same limit before it makes inputs
// (the caller's copy per rank and the ranks' own: 4 x 8 PB).
// RUN: not coco-run %s --backend reference --ranks 2 2>&1 | FileCheck %s --check-prefix=REFERENCE

// CHECK: coco-run: error: stage 0 (@huge): buffer 'arg0' (f64[1000000000000000], 8000000000000000 bytes) brings the rank's buffers to 8000000000000000 bytes, over the limit of {{[0-9]+}} bytes (this machine's memory; set COCO_MAX_MEMORY_BYTES to change it)
// REFERENCE: coco-run: error: input 'huge.arg0' (f64 [1000000000000000]) needs 32000000000000000 bytes in the reference interpreter, bringing its values to 32000000000000000 bytes, over the limit of {{[0-9]+}} bytes (this machine's memory; set COCO_MAX_MEMORY_BYTES to change it)
func.func @huge(%x: tensor<1000000000000000xf64, #coco.local>) -> tensor<1000000000000000xf64, #coco.replicated> {
  %s = coco.all_reduce sum %x : tensor<1000000000000000xf64, #coco.local> -> tensor<1000000000000000xf64, #coco.replicated>
  return %s : tensor<1000000000000000xf64, #coco.replicated>
}
