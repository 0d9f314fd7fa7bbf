// RUN: coco-opt %s --split-input-file --verify-diagnostics
//
// coco.all_to_all re-slices: #coco.sliced<a> -> #coco.sliced<b> with a != b
// along the axis it communicates over. From a dimension to itself it
// verified on a mesh (only plain layouts were checked), and then the
// reference interpreter ran it as the identity while the CPU backend
// exchanged blocks.

coco.mesh @grid [dp = 2, tp = 2]

func.func @same_dimension_over_axis(%x: tensor<8x16xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>) {
  // expected-error@+1 {{'coco.all_to_all' op re-slices along the dimension it is already sliced on (#coco.sliced<1> over "tp"); all_to_all goes from #coco.sliced<a> to #coco.sliced<b> with a != b}}
  %0 = coco.all_to_all %x over "tp" : tensor<8x16xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> -> tensor<8x16xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
  return
}

// -----

coco.mesh @grid [dp = 2, tp = 2]

// A plain layout on a mesh is that layout along every axis.
func.func @same_dimension_plain_over_axis(%x: tensor<8x16xf32, #coco.sliced<1>>) {
  // expected-error@+1 {{re-slices along the dimension it is already sliced on (#coco.sliced<1> over "tp")}}
  %0 = coco.all_to_all %x over "tp" : tensor<8x16xf32, #coco.sliced<1>> -> tensor<8x16xf32, #coco.sliced<1>>
  return
}

// -----

coco.mesh @grid [dp = 2, tp = 2]

// Along "tp" it re-slices (1 -> 0); "dp" keeps its sliced<0> untouched,
// which is not a re-slice along "dp": this verifies.
func.func @other_axis_keeps_its_slicing(%x: tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>) {
  %0 = coco.all_to_all %x over "tp" : tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> -> tensor<8x16xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<0>}>>
  return
}
