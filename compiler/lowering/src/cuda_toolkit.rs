//! Where NVIDIA's own tools are: a CUDA toolkit folder, or the
//! `nvidia-cuda-nvcc-cu12` wheel's `nvidia/cuda_nvcc` (the set-up script
//! installs it into `.venv`), which has the same layout for what coco uses:
//! `nvvm/libdevice/libdevice.10.bc` (linked into GPU modules) and
//! `bin/ptxas` (assembles PTX, reports each kernel's resources).
//!
//! The folder is `--cuda-path`, else the first of `CUDA_ROOT`, `CUDA_HOME`
//! and `CUDA_PATH` that is set: the variables, and the order, MLIR's NVVM
//! target reads itself when no toolkit is named, so coco and MLIR never
//! disagree about which libdevice a module gets.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The environment variables MLIR's `NVVM::getCUDAToolkitPath` reads, in
/// its order.
pub const ENVIRONMENT: &[&str] = &["CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"];

const LIBDEVICE: &str = "nvvm/libdevice/libdevice.10.bc";
const PTXAS: &str = "bin/ptxas";

/// A folder with (at least) libdevice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaToolkit {
    root: PathBuf,
}

impl CudaToolkit {
    /// `explicit` (`--cuda-path`), else the environment; `None` when
    /// neither names a folder. A named folder without libdevice is an
    /// error that says where the name came from.
    pub fn find(explicit: Option<&Path>) -> Result<Option<CudaToolkit>> {
        let named = match explicit {
            Some(path) => Some((path.to_path_buf(), "--cuda-path".to_string())),
            None => ENVIRONMENT.iter().find_map(|variable| {
                let value = std::env::var_os(variable).filter(|v| !v.is_empty())?;
                Some((PathBuf::from(value), format!("${variable}")))
            }),
        };
        let Some((root, source)) = named else {
            return Ok(None);
        };
        let toolkit = CudaToolkit { root };
        if !toolkit.libdevice().is_file() {
            return Err(Error::unsupported(
                source,
                format!(
                    "{} has no {LIBDEVICE}: name a CUDA toolkit, or the nvidia-cuda-nvcc-cu12 \
                     wheel's nvidia/cuda_nvcc folder (scripts/setup.sh installs it into .venv)",
                    toolkit.root.display()
                ),
            ));
        }
        // MLIR's pass options are split at spaces and braces.
        let text = toolkit.root.to_string_lossy();
        if text.contains(|c: char| c.is_whitespace() || "{}\"'".contains(c)) {
            return Err(Error::unsupported(
                source,
                format!("{text}: a CUDA path with spaces, quotes or braces cannot be passed to MLIR's GPU serializer"),
            ));
        }
        Ok(Some(toolkit))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn libdevice(&self) -> PathBuf {
        self.root.join(LIBDEVICE)
    }

    /// `bin/ptxas`, when the folder has it.
    pub fn ptxas(&self) -> Option<PathBuf> {
        let path = self.root.join(PTXAS);
        path.is_file().then_some(path)
    }
}
