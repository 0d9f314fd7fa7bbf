// A mesh fixes the world size (here 3), so coco-split must not slice a
// dimension its blocks do not divide: 4 rows over tp = 3 made a program
// that no world size runs. Such all_reduces stay, with a remark; 6 rows
// split. The result runs on the mesh's ranks, bitwise as before.
// RUN: coco-opt %s --coco-split --verify-diagnostics
// RUN: coco-opt %s --coco-split 2>/dev/null | FileCheck %s
// RUN: coco-opt %s --coco-split -o %t.mlir
// RUN: coco-run %t.mlir --entry rows --backend reference --ranks 3 --seed 1 --print-values | FileCheck %s --check-prefix=VALUES
// RUN: coco-run %s --entry rows --backend reference --ranks 3 --seed 1 --print-values | FileCheck %s --check-prefix=VALUES

// CHECK-LABEL: func.func @rows
// CHECK: coco.all_reduce sum %{{.*}} over "tp" : tensor<4x6xf32
// CHECK: coco.reduce_scatter sum %{{.*}} over "tp" : tensor<6x4xf32, {{.*}} -> tensor<6x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>
// CHECK: coco.all_gather
// CHECK-LABEL: func.func @whole
// CHECK: coco.all_reduce sum %{{.*}} : tensor<4xf32, #coco.local>

// VALUES:      rows.result0: f32 [4, 6] #coco.replicated
// VALUES-NEXT:   [0.5610484480857849, 0.7519189119338989, 1.3826313018798828, 2.1420774459838867, 1.8532946109771729, 1.0611939430236816, 2.1039071083068848, 1.0128326416015625, 1.8901039361953735, 1.8170804977416992, 1.7769328355789185, 2.4208900928497314, 1.1026805639266968, 0.9683977365493774, 1.2520639896392822, 1.861036777496338, 1.763414740562439, 1.2190548181533813, 1.3566315174102783, 1.1019628047943115, 1.7047598361968994, 1.2138981819152832, 2.0844292640686035, 0.719646692276001]
// VALUES-NEXT: rows.result1: f32 [6, 4] #coco.replicated
// VALUES-NEXT:   [0.7688672542572021, 0.7770386934280396, 0.7809010148048401, 1.866032600402832, 1.4339638948440552, 1.2699975967407227, 1.2883121967315674, 1.0710049867630005, 0.5860692262649536, 1.9191195964813232, 1.5359272956848145, 1.2763774394989014, 1.1635854244232178, 1.0617588758468628, 1.5171847343444824, 1.0863888263702393, 1.714365005493164, 1.7151834964752197, 1.0271718502044678, 0.9510997533798218, 1.4128479957580566, 2.2450833320617676, 1.6827068328857422, 1.6005480289459229]

coco.mesh @grid [dp = 1, tp = 3]

func.func @rows(%a: tensor<4x6xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.local}>>,
                %b: tensor<6x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.local}>>)
    -> (tensor<4x6xf32, #coco.replicated>, tensor<6x4xf32, #coco.replicated>) {
  // expected-remark@+1 {{coco-split: not applied to coco.all_reduce: dimension 0 has size 4, which "tp" (3 ranks) cannot slice evenly, so the split program could not run on the mesh (choose another with dim=)}}
  %r = coco.all_reduce sum %a over "tp" : tensor<4x6xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.local}>> -> tensor<4x6xf32, #coco.replicated>
  %s = coco.all_reduce sum %b over "tp" : tensor<6x4xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.local}>> -> tensor<6x4xf32, #coco.replicated>
  return %r, %s : tensor<4x6xf32, #coco.replicated>, tensor<6x4xf32, #coco.replicated>
}

// Over the whole group, the intermediate is sliced over every axis.
func.func @whole(%a: tensor<4xf32, #coco.local>) -> tensor<4xf32, #coco.replicated> {
  // expected-remark@+1 {{coco-split: not applied to coco.all_reduce: dimension 0 has size 4, which the mesh [dp = 1, tp = 3] (3 ranks) cannot slice evenly}}
  %r = coco.all_reduce sum %a : tensor<4xf32, #coco.local> -> tensor<4xf32, #coco.replicated>
  return %r : tensor<4xf32, #coco.replicated>
}
