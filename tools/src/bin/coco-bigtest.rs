//! `coco-bigtest`: BigTest for df programs. See `coco_tools::bigtest`.

fn main() {
    coco_tools::main("coco-bigtest", coco_tools::bigtest::run)
}
