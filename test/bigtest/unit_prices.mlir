// JDU paths of @unit_prices (examples/bigtest/unit_prices.mlir) at k=2.
// After the union and df.distinct a sales line is one of 5 kinds: unique
// from store_sales or from web_sales, or a duplicate of two store lines, of
// a store and a web line, or of two web lines (a web line never precedes a
// store line: the union emits its left input first). @parse fails 7 ways on
// each kind: df.get #1, #2 or #3 past the end (#1, piece 0, only on the
// JVM, the program's host, for a line of ";" alone, as String.split drops
// trailing empty pieces), to_int #4 or #5, divsi #6 by a zero quantity,
// df.substr #10 on a SKU shorter than 3 (35 paths). A
// category without sales is right-only, which the left_outer join drops (1).
// A parsed line takes either side of the negative-price scf.if (10 kinds)
// and finds its category or not (left-only keeps it as "unknown"): 20 kinds,
// each alone at group_by_key (20) or grouped with another record of the same
// category name: the 20 x 20 ordered pairs less the 8 x 12 where a
// web-first record precedes a store-first one (304).
// 35 + 1 + 20 + 304 = 360 paths, all satisfiable.
// Every unmatched product is grouped under the constant name "unknown", so
// one dataset holds at most one path through that group: the data comes as
// many small test cases (238), and takes minutes to generate: that part is
// unit_prices-generate.mlir (REQUIRES: slow); CI runs unit_prices-small.mlir.
// RUN: coco-opt ../examples/bigtest/unit_prices.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/unit_prices.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT

// CHECK: branches ["source#0", "union#3=lhs", "distinct#4=unique", "map#5@parse:substr#10=fail"]
// CHECK: branches ["distinct#4=duplicate{source#0, union#3=lhs | source#1, union#3=rhs}", "map#5@parse:divsi#6=fail"]
// CHECK: branches ["source#2", "join#6=right-only"]
// CHECK: branches ["distinct#4=duplicate{source#1, union#3=rhs | source#1, union#3=rhs}", "map#5@parse:if#12=else", "join#6=left-only", "group_by_key#8=single", "sink#9"]
// CHECK: branches ["group_by_key#8=group{join#6=both{source#0, union#3=lhs, distinct#4=unique, map#5@parse:if#12=then | source#2} | join#6=both{source#0, union#3=lhs, distinct#4=unique, map#5@parse:if#12=then | source#2}}", "sink#9"]
// CHECK-NOT: group_by_key#8=group{join#6=both{source#1, union#3=rhs, distinct#4=unique, map#5@parse:if#12=then | source#2} | join#6=both{source#0

// COUNT-COUNT-360: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path


