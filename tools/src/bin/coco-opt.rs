//! `coco-opt`: mlir-opt for coco. See `coco_tools::opt`.

fn main() {
    coco_tools::main("coco-opt", |args| coco_tools::opt::run(args, None))
}
