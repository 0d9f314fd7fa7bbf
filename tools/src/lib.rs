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

/// Parses `args` with clap; `Err` is the output to return as is (usage
/// errors exit 1, as mlir-opt's do; `--help` and `--version` exit 0).
pub fn parse_args<T: clap::Parser>(args: &[String]) -> Result<T, Output> {
    T::try_parse_from(args).map_err(|e| {
        let text = e.render().to_string().into_bytes();
        if e.use_stderr() {
            Output {
                stdout: Vec::new(),
                stderr: text,
                code: 1,
            }
        } else {
            Output {
                stdout: text,
                stderr: Vec::new(),
                code: 0,
            }
        }
    })
}
