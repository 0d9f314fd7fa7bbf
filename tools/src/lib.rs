//! coco's tools as library entry points, so the filetest harness runs them
//! in-process (one test binary links MLIR once). The binaries in `src/bin`
//! only forward `std::env::args` here.

pub mod opt;
pub mod run;
pub mod source;

/// What a tool run produced.
#[derive(Debug, Default)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
}
