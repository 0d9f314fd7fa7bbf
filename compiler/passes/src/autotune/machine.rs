//! Machine descriptions for the cost model: small TOML files. Presets ship
//! in `compiler/passes/machines/`; any other file can be given by path.

use serde::Deserialize;

use crate::Result;

#[derive(Clone, Debug, Deserialize)]
pub struct Link {
    pub latency_us: f64,
    /// GB/s per device.
    pub bandwidth_gbps: f64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Device {
    pub memory_bandwidth_gbps: f64,
    pub peak_tflops_f32: f64,
    pub peak_tflops_f16: f64,
    pub kernel_launch_us: f64,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Machine {
    pub name: String,
    pub description: String,
    pub world_size: usize,
    pub devices_per_node: usize,
    pub intra_node: Link,
    pub inter_node: Link,
    pub device: Device,
}

/// The most a machine description may hold: the presets are under 1 KiB.
const MAX_DESCRIPTION_BYTES: u64 = 1 << 20;

/// The text of the machine description at `path`: a regular file (a FIFO
/// would block the pass, `/dev/zero` feed it forever) of at most
/// [`MAX_DESCRIPTION_BYTES`].
fn read_description(path: &str) -> std::result::Result<String, String> {
    use std::io::Read;
    let (file, metadata) =
        coco_base::file::open_regular(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    let too_big = |size: u64| {
        format!("it holds {size} bytes, more than a machine description's limit of {MAX_DESCRIPTION_BYTES}")
    };
    if metadata.len() > MAX_DESCRIPTION_BYTES {
        return Err(too_big(metadata.len()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_DESCRIPTION_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_DESCRIPTION_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".into())
}

/// `(name, TOML)` of the shipped presets.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "v100-cluster",
        include_str!("../../machines/v100-cluster.toml"),
    ),
    ("h100-node", include_str!("../../machines/h100-node.toml")),
    ("cpu-host", include_str!("../../machines/cpu-host.toml")),
];

impl Machine {
    pub fn parse(text: &str, origin: &str) -> Result<Machine> {
        let machine: Machine = toml::from_str(text).map_err(|e| coco_pass::Error::PassOption {
            pass: "coco-autotune".into(),
            message: format!("bad machine description {origin}: {e}"),
        })?;
        if machine.world_size == 0 || machine.devices_per_node == 0 {
            return Err(coco_pass::Error::PassOption {
                pass: "coco-autotune".into(),
                message: format!("{origin}: world_size and devices_per_node must be positive"),
            }
            .into());
        }
        Ok(machine)
    }

    /// A preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Machine> {
        if let Some((_, text)) = PRESETS.iter().find(|(name, _)| *name == name_or_path) {
            return Machine::parse(text, name_or_path);
        }
        let text = read_description(name_or_path).map_err(|e| coco_pass::Error::PassOption {
            pass: "coco-autotune".into(),
            message: format!(
                "'{name_or_path}' is neither a preset ({}) nor a readable file: {e}",
                PRESETS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })?;
        Machine::parse(&text, name_or_path)
    }

    /// The link a collective over `ranks` devices is limited by.
    pub fn link(&self, ranks: usize) -> &Link {
        if ranks <= self.devices_per_node {
            &self.intra_node
        } else {
            &self.inter_node
        }
    }
}
