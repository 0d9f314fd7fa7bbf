//! Kernels to PTX: upstream GPU outlining, NVVM and `gpu-module-to-binary`
//! (no CUDA toolkit needed), plus the launch list the CUDA backend replays.

use std::collections::HashMap;

use coco_bundle::plan::GpuLaunch;
use melior::{ir::Module, Context};

use crate::{
    error::{Error, Result},
    pipelines,
};

pub struct Ptx {
    /// Every kernel's device code in one PTX module; `None` when no kernel
    /// maps to the GPU.
    pub assembly: Option<String>,
    /// Per host kernel, its device launches in order and the bytes of the
    /// temporaries they share.
    pub launches: HashMap<String, (Vec<GpuLaunch>, Vec<u64>)>,
    /// Host kernels that keep work on the host after outlining (reductions
    /// without a parallel dimension, temporaries): no GPU launch list.
    pub host_bound: Vec<String>,
}

/// `kernels` is the generated kernel module text; `buffers` the number of
/// buffer parameters of each kernel.
pub fn compile(
    context: &Context,
    kernels: &str,
    buffers: &HashMap<String, usize>,
    chip: &str,
    features: &str,
) -> Result<Ptx> {
    let mut module: Module = pipelines::parse(context, kernels, "GPU")?;
    pipelines::run(
        context,
        &mut module,
        &pipelines::gpu_outline(),
        "GPU outlining",
    )?;
    let outlined = unique_entries(&module.as_operation().to_string());
    let (launches, host_bound) = launches(&outlined, buffers);
    let mut module: Module = pipelines::parse(context, &outlined, "GPU")?;
    pipelines::run(
        context,
        &mut module,
        &pipelines::gpu_to_ptx(chip, features),
        "PTX",
    )?;
    let assembly = merge(&module.as_operation().to_string())?;
    Ok(Ptx {
        assembly,
        launches,
        host_bound,
    })
}

/// Names every outlined kernel after its `gpu.module` (`adam_k0_kernel_3`):
/// outlining names the functions after the host function, so several share
/// a name, and one PTX module needs distinct entry points.
fn unique_entries(outlined: &str) -> String {
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut current: Option<String> = None;
    for line in outlined.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("gpu.module @") {
            current = rest.split_whitespace().next().map(str::to_string);
        } else if let (Some(module), Some(rest)) = (&current, trimmed.strip_prefix("gpu.func @")) {
            let function = rest[..rest.find('(').unwrap_or(rest.len())].to_string();
            renames.push((module.clone(), function));
        }
    }
    let mut out = String::with_capacity(outlined.len());
    let mut current: Option<String> = None;
    for line in outlined.lines() {
        let trimmed = line.trim_start();
        let mut line = line.to_string();
        if let Some(rest) = trimmed.strip_prefix("gpu.module @") {
            current = rest.split_whitespace().next().map(str::to_string);
        } else if let Some(module) = &current {
            if let Some((_, function)) = renames.iter().find(|(m, _)| m == module) {
                line = line.replacen(
                    &format!("gpu.func @{function}("),
                    &format!("gpu.func @{module}("),
                    1,
                );
            }
        }
        if trimmed.starts_with("gpu.launch_func") {
            for (module, function) in &renames {
                line = line.replace(
                    &format!("@{module}::@{function} "),
                    &format!("@{module}::@{module} "),
                );
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Reads the host functions of the outlined module: constants, launches,
/// and anything else (which keeps the kernel off the GPU).
type Launches = HashMap<String, (Vec<GpuLaunch>, Vec<u64>)>;

fn launches(outlined: &str, buffers: &HashMap<String, usize>) -> (Launches, Vec<String>) {
    let mut out: Launches = HashMap::new();
    let mut host_bound = Vec::new();
    let mut current: Option<String> = None;
    let mut constants: HashMap<String, String> = HashMap::new();
    let mut bound = false;
    for line in outlined.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("func.func @") {
            let name = rest[..rest.find('(').unwrap_or(rest.len())].to_string();
            current = Some(name.clone());
            constants.clear();
            bound = false;
            out.entry(name).or_default();
            continue;
        }
        let Some(kernel) = current.clone() else {
            continue;
        };
        if line == "}" || line.starts_with("gpu.module") {
            if bound {
                host_bound.push(kernel.clone());
                out.remove(&kernel);
            }
            current = None;
            continue;
        }
        if line == "return" || line.is_empty() {
            continue;
        }
        if let Some((name, rest)) = line.split_once(" = arith.constant ") {
            // `%c4 = arith.constant 4 : index`
            if let Some((value, ty)) = rest.rsplit_once(" : ") {
                let ty = if ty == "index" { "i64" } else { ty };
                constants.insert(name.to_string(), format!("{ty}:{value}"));
                continue;
            }
        }
        if let Some((name, rest)) = line.split_once(" = memref.alloc() ") {
            // `%alloc = memref.alloc() {alignment = 64 : i64} : memref<16x2048xf32>`
            if let Some(bytes) = rest.rsplit_once(" : ").and_then(|(_, ty)| memref_bytes(ty)) {
                let entry = out.entry(kernel.clone()).or_default();
                constants.insert(name.to_string(), format!("scratch:{}", entry.1.len()));
                entry.1.push(bytes);
                continue;
            }
        }
        if line.starts_with("memref.dealloc ") {
            continue;
        }
        // `rank * k`: a slice offset computed on the host.
        if let Some((name, rest)) = line.split_once(" = arith.muli ") {
            let rank_arg = format!("%arg{}", buffers.get(&kernel).copied().unwrap_or(0));
            let operands: Vec<&str> = rest.split(" : ").next().unwrap_or("").split(", ").collect();
            if let [a, b] = operands[..] {
                let factor = |c: &str| {
                    constants
                        .get(c)
                        .and_then(|v| v.strip_prefix("i64:"))
                        .map(str::to_string)
                };
                let product = if a == rank_arg {
                    factor(b)
                } else if b == rank_arg {
                    factor(a)
                } else {
                    None
                };
                if let Some(k) = product {
                    constants.insert(name.to_string(), format!("rank*{k}"));
                    continue;
                }
            }
        }
        // Reshapes of dense memrefs are the same pointer.
        if let Some((name, rest)) = line.split_once(" = memref.") {
            if rest.starts_with("collapse_shape ") || rest.starts_with("expand_shape ") {
                let source = rest.split_whitespace().nth(1).unwrap_or("");
                let alias = constants
                    .get(source)
                    .cloned()
                    .unwrap_or_else(|| source.to_string());
                constants.insert(name.to_string(), alias);
                continue;
            }
        }
        if let Some(rest) = line.strip_prefix("gpu.launch_func") {
            let count = buffers.get(&kernel).copied().unwrap_or(0);
            match parse_launch(rest, &constants, count) {
                Some(launch) => out.entry(kernel.clone()).or_default().0.push(launch),
                None => bound = true,
            }
            continue;
        }
        bound = true;
    }
    (out, host_bound)
}

/// Bytes of a static `memref<AxBxT>` type.
fn memref_bytes(ty: &str) -> Option<u64> {
    let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let element = parts.pop()?;
    let size: u64 = match element {
        "f64" | "i64" | "index" => 8,
        "f32" | "i32" => 4,
        "f16" | "bf16" | "i16" => 2,
        "i8" | "i1" => 1,
        _ => return None,
    };
    parts
        .iter()
        .try_fold(size, |acc, d| Some(acc * d.parse::<u64>().ok()?))
}

fn between<'t>(text: &'t str, open: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = start + text[start..].find(')')?;
    Some(&text[start..end])
}

fn parse_launch(
    text: &str,
    constants: &HashMap<String, String>,
    buffers: usize,
) -> Option<GpuLaunch> {
    let symbol = text.split_whitespace().next()?;
    let entry = symbol
        .rsplit("::@")
        .next()?
        .trim_start_matches('@')
        .to_string();
    let dims = |open: &str| -> Option<[u64; 3]> {
        let parts: Vec<u64> = between(text, open)?
            .split(',')
            .map(|p| {
                constants
                    .get(p.trim())
                    .and_then(|c| c.strip_prefix("i64:"))
                    .and_then(|v| v.parse().ok())
            })
            .collect::<Option<_>>()?;
        parts.try_into().ok()
    };
    let grid = dims("blocks in (")?;
    let block = dims("threads in (")?;
    let mut params = Vec::new();
    if let Some(args) = between(text, "args(") {
        for arg in args.split(", ") {
            let name = arg.split(" : ").next()?.trim();
            let aliased = constants
                .get(name)
                .filter(|a| a.starts_with("%arg"))
                .cloned();
            let name = aliased.as_deref().unwrap_or(name);
            if let Some(index) = name
                .strip_prefix("%arg")
                .and_then(|i| i.parse::<usize>().ok())
            {
                params.push(if index == buffers {
                    "rank".to_string()
                } else {
                    format!("buffer:{index}")
                });
            } else {
                params.push(constants.get(name)?.clone());
            }
        }
    }
    Some(GpuLaunch {
        entry,
        grid,
        block,
        params,
    })
}

/// Joins the PTX of every `gpu.binary` into one module (one header, every
/// entry).
fn merge(module_text: &str) -> Result<Option<String>> {
    let mut header = String::new();
    let mut bodies = String::new();
    for (i, chunk) in module_text.split("assembly = \"").skip(1).enumerate() {
        let end = chunk
            .find("\">")
            .ok_or_else(|| Error::Codegen("internal error: unterminated PTX assembly".into()))?;
        // The assembly is NUL-terminated for the CUDA driver; one file has one end.
        let ptx = unescape(&chunk[..end]).trim_end_matches('\0').to_string();
        let (head, body) = match ptx.find(".address_size") {
            Some(at) => {
                let line_end = at + ptx[at..].find('\n').unwrap_or(ptx.len() - at);
                (ptx[..line_end].to_string(), ptx[line_end..].to_string())
            }
            None => (String::new(), ptx.clone()),
        };
        if i == 0 {
            header = head;
        }
        bodies.push_str(&body);
    }
    if header.is_empty() {
        return Ok(None);
    }
    let (bodies, externs) = strip_externs(&bodies);
    // NVPTX numbers call sequences with a counter that lives as long as the
    // process (`// callseq 3, 0`), so the same kernel would print
    // differently depending on what was compiled before: drop the comments.
    let bodies: String = bodies
        .lines()
        .map(|line| match line.find("// callseq") {
            Some(at) => line[..at].trim_end(),
            None => line,
        })
        .flat_map(|line| [line, "\n"])
        .collect();
    let mut definitions = String::new();
    for name in &externs {
        let definition = libdevice_shim(name).ok_or_else(|| {
            Error::Codegen(format!(
                "a kernel calls the libdevice function {name}, which needs a CUDA toolkit to link; \
                 coco provides PTX for __nv_sqrtf, __nv_sqrt, __nv_fabsf, __nv_fabs, __nv_expf and __nv_tanhf only"
            ))
        })?;
        definitions.push_str(definition);
    }
    Ok(Some(format!("{header}\n{definitions}{bodies}")))
}

/// Removes `.extern .func` declarations; returns the text and the names.
fn strip_externs(ptx: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut names: Vec<String> = Vec::new();
    let mut in_extern = false;
    for line in ptx.lines() {
        if line.starts_with(".extern .func") {
            if let Some(name) = line.split_whitespace().last() {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
            in_extern = !line.trim_end().ends_with(';');
            continue;
        }
        if in_extern {
            if line.trim() == ";" || line.trim_end().ends_with(';') {
                in_extern = false;
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, names)
}

/// PTX definitions of the libdevice functions kernels call, so that they
/// load without a CUDA toolkit's libdevice (`convert-gpu-to-nvvm` calls
/// libdevice for every math op): exact where PTX has the instruction
/// (sqrt.rn, abs), documented approximations for exp and tanh.
fn libdevice_shim(name: &str) -> Option<&'static str> {
    Some(match name {
        "__nv_sqrtf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_sqrtf(\n\t.param .b32 __nv_sqrtf_param_0\n)\n{\n",
            "\t.reg .f32 \t%f<3>;\n\tld.param.f32 \t%f1, [__nv_sqrtf_param_0];\n",
            "\tsqrt.rn.f32 \t%f2, %f1;\n\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n}\n\n"
        ),
        "__nv_sqrt" => concat!(
            ".func  (.param .b64 func_retval0) __nv_sqrt(\n\t.param .b64 __nv_sqrt_param_0\n)\n{\n",
            "\t.reg .f64 \t%fd<3>;\n\tld.param.f64 \t%fd1, [__nv_sqrt_param_0];\n",
            "\tsqrt.rn.f64 \t%fd2, %fd1;\n\tst.param.f64 \t[func_retval0+0], %fd2;\n\tret;\n}\n\n"
        ),
        "__nv_fabsf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_fabsf(\n\t.param .b32 __nv_fabsf_param_0\n)\n{\n",
            "\t.reg .f32 \t%f<3>;\n\tld.param.f32 \t%f1, [__nv_fabsf_param_0];\n",
            "\tabs.f32 \t%f2, %f1;\n\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n}\n\n"
        ),
        "__nv_fabs" => concat!(
            ".func  (.param .b64 func_retval0) __nv_fabs(\n\t.param .b64 __nv_fabs_param_0\n)\n{\n",
            "\t.reg .f64 \t%fd<3>;\n\tld.param.f64 \t%fd1, [__nv_fabs_param_0];\n",
            "\tabs.f64 \t%fd2, %fd1;\n\tst.param.f64 \t[func_retval0+0], %fd2;\n\tret;\n}\n\n"
        ),
        // exp(x) = 2^(x log2 e) with PTX's ex2.approx: relative error about
        // 2^-22 plus |x| 2^-24 from rounding the product.
        "__nv_expf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_expf(\n\t.param .b32 __nv_expf_param_0\n)\n{\n",
            "\t.reg .f32 \t%f<4>;\n\tld.param.f32 \t%f1, [__nv_expf_param_0];\n",
            "\tmul.rn.f32 \t%f2, %f1, 0f3FB8AA3B;\n\tex2.approx.f32 \t%f3, %f2;\n",
            "\tst.param.f32 \t[func_retval0+0], %f3;\n\tret;\n}\n\n"
        ),
        // tanh(x): x (1 - x^2/3 + 2x^4/15) below |x| = 1/16, else
        // sign(x) (1 - t) / (1 + t) with t = exp(-2|x|) (no cancellation:
        // 1 - t > 0.11); relative error about 1e-6.
        "__nv_tanhf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_tanhf(\n\t.param .b32 __nv_tanhf_param_0\n)\n{\n",
            "\t.reg .pred \t%p<2>;\n\t.reg .f32 \t%f<13>;\n",
            "\tld.param.f32 \t%f1, [__nv_tanhf_param_0];\n\tabs.f32 \t%f2, %f1;\n",
            "\tsetp.lt.f32 \t%p1, %f2, 0f3D800000;\n\t@%p1 bra \t$L__tanhf_small;\n",
            "\tmul.rn.f32 \t%f3, %f2, 0fC038AA3B;\n\tex2.approx.f32 \t%f4, %f3;\n",
            "\tsub.rn.f32 \t%f5, 0f3F800000, %f4;\n\tadd.rn.f32 \t%f6, 0f3F800000, %f4;\n",
            "\tdiv.rn.f32 \t%f7, %f5, %f6;\n\tcopysign.f32 \t%f8, %f1, %f7;\n",
            "\tst.param.f32 \t[func_retval0+0], %f8;\n\tret;\n",
            "$L__tanhf_small:\n\tmul.rn.f32 \t%f9, %f1, %f1;\n",
            "\tfma.rn.f32 \t%f10, %f9, 0f3E088889, 0fBEAAAAAB;\n",
            "\tfma.rn.f32 \t%f11, %f9, %f10, 0f3F800000;\n\tmul.rn.f32 \t%f12, %f1, %f11;\n",
            "\tst.param.f32 \t[func_retval0+0], %f12;\n\tret;\n}\n\n"
        ),
        _ => return None,
    })
}

/// MLIR string escapes (`\0A`, `\22`, `\5C`, ...) to bytes.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 2 < bytes.len() + 1 {
            let hex = std::str::from_utf8(&bytes[i + 1..(i + 3).min(bytes.len())]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
