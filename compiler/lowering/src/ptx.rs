//! Kernels to PTX: upstream GPU outlining, NVVM and `gpu-module-to-binary`
//! (no CUDA toolkit needed), plus the launch list the CUDA backend replays.
//!
//! The launch list is read from the outlined module's ops: each host
//! function's `gpu.launch_func`s, their grid and block sizes traced to
//! `arith.constant`s and their arguments to the function's parameters, its
//! temporaries (`memref.alloc`) and rank-dependent offsets. Only the PTX
//! itself is handled as text.

use std::collections::HashMap;

use coco_bundle::{DType, GpuLaunch, LaunchParam, Scalar};
use coco_dialects::ir::{
    as_op, body_ops, element_dtype, nested_ops, op_name, owned, raw_op, str_attr,
};
use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute},
        block::BlockArgument,
        operation::OperationRefMut,
        r#type::{IntegerType, MemRefType},
        Attribute, AttributeLike, Module, Operation, ShapedTypeLike, Type, TypeLike, Value,
        ValueLike,
    },
    Context,
};

use crate::{
    cuda_toolkit::CudaToolkit,
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
    toolkit: Option<&CudaToolkit>,
) -> Result<Ptx> {
    let mut module: Module = pipelines::parse(context, kernels, "GPU")?;
    pipelines::run(
        context,
        &mut module,
        &pipelines::gpu_outline(),
        "GPU outlining",
    )?;
    unique_entries(context, &module.as_operation());
    let (launches, host_bound) = launches(&module.as_operation(), buffers);
    pipelines::run(
        context,
        &mut module,
        &pipelines::gpu_to_nvvm(chip, features),
        "NVVM",
    )?;
    correctly_rounded_sqrt(context, &module.as_operation())?;
    pipelines::run(
        context,
        &mut module,
        &pipelines::nvvm_to_ptx(toolkit.map(CudaToolkit::root)),
        "PTX",
    )?;
    let assembly = merge(&assemblies(&module.as_operation()))?;
    Ok(Ptx {
        assembly,
        launches,
        host_bound,
    })
}

/// The PTX ISA versions (`--ptx-version`: 10 x major + minor) LLVM 19's
/// NVPTX backend emits, from the oldest any supported chip accepts. LLVM
/// ignores a `+ptx` feature it does not know and falls back to the chip's
/// minimum, so an unchecked `--ptx-version 999` would silently emit 7.8.
pub const PTX_VERSIONS: &[u32] = &[
    60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85,
];

/// The oldest PTX ISA version that can target `chip` (PTX ISA release
/// notes: sm_70 came with 6.0, ..., sm_89 and sm_90 with 7.8).
fn oldest_for(chip: &str) -> u32 {
    match chip {
        "sm_72" => 61,
        "sm_75" => 63,
        "sm_80" => 70,
        "sm_86" => 71,
        "sm_87" => 74,
        "sm_89" | "sm_90" => 78,
        _ => 60,
    }
}

/// Checks the PTX version in `features` (`+ptx<N>`) against
/// [`PTX_VERSIONS`] and against what `chip` needs.
pub fn check_version(chip: &str, features: &str) -> Result<()> {
    let version = features
        .split(',')
        .find_map(|f| f.strip_prefix("+ptx"))
        .and_then(|v| v.parse::<u32>().ok());
    let listed = || {
        PTX_VERSIONS
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(version) = version.filter(|v| PTX_VERSIONS.contains(v)) else {
        return Err(Error::unsupported(
            "--ptx-version",
            format!(
                "unsupported PTX ISA version '{}' (expected one of {}: 10 x major + minor, 80 for PTX 8.0)",
                features.trim_start_matches("+ptx"),
                listed()
            ),
        ));
    };
    let oldest = oldest_for(chip);
    if version < oldest {
        return Err(Error::unsupported(
            "--ptx-version",
            format!(
                "PTX ISA {}.{} cannot target {chip}, which needs {}.{} or later (--ptx-version {oldest})",
                version / 10,
                version % 10,
                oldest / 10,
                oldest % 10
            ),
        ));
    }
    Ok(())
}

const GPU_MODULE: &str = "gpu.module";
const GPU_FUNC: &str = "gpu.func";
const LAUNCH_FUNC: &str = "gpu.launch_func";

/// Names every outlined kernel after its `gpu.module` (`adam_k0_kernel_3`),
/// and points the launches at the new names: outlining names the functions
/// after the host function, so several share a name, and one PTX module
/// needs distinct entry points.
fn unique_entries(context: &Context, module: &Operation) {
    // (module, function) for the first function of each `gpu.module`.
    let mut renamed: Vec<(String, String)> = Vec::new();
    for gpu_module in body_ops(module) {
        let gpu_module = as_op(&gpu_module);
        if op_name(gpu_module) != GPU_MODULE {
            continue;
        }
        let Some(module_name) = str_attr(gpu_module, "sym_name") else {
            continue;
        };
        let functions = body_ops(gpu_module);
        let Some(function) = functions.iter().find(|f| op_name(as_op(f)) == GPU_FUNC) else {
            continue;
        };
        let Some(function_name) = str_attr(as_op(function), "sym_name") else {
            continue;
        };
        set_attribute(
            as_op(function),
            "sym_name",
            StringAttribute::new(context, &module_name).into(),
        );
        renamed.push((module_name, function_name));
    }
    for launch in nested_ops(module) {
        let launch = as_op(&launch);
        if op_name(launch) != LAUNCH_FUNC {
            continue;
        }
        let Some((root, leaf)) = launch.attribute("kernel").ok().and_then(nested_symbol) else {
            continue;
        };
        if renamed.iter().any(|(m, f)| *m == root && *f == leaf) {
            set_attribute(
                launch,
                "kernel",
                nested_symbol_attribute(context, &root, &root),
            );
        }
    }
}

fn set_attribute<'c>(op: &Operation<'c>, name: &str, attribute: Attribute<'c>) {
    // SAFETY: `op` is a live op of a module this function owns the use of;
    // setting an attribute does not invalidate handles.
    let mut op = unsafe { OperationRefMut::from_raw(raw_op(op)) };
    op.set_attribute(name, attribute);
}

/// `__nv_sqrtf` and `__nv_sqrt` as LLVM's `sqrt` intrinsic, which NVPTX
/// emits as `sqrt.rn`: `convert-gpu-to-nvvm` calls libdevice for
/// `math.sqrt` (and marks the intrinsic illegal, so this comes after it),
/// and LLVM 19's NVVMReflect answers libdevice's `__CUDA_PREC_SQRT` query
/// with 0, which picks `sqrt.approx`. A definition in the module wins over
/// libdevice's (bitcode is linked only where the module has a
/// declaration), so `math.sqrt` stays correctly rounded, as in the
/// interpreter, with or without libdevice.
const CORRECTLY_ROUNDED_SQRT: &str = r#"module {
  llvm.func internal @__nv_sqrtf(%x: f32) -> f32 attributes {passthrough = ["alwaysinline"]} {
    %r = llvm.intr.sqrt(%x) : (f32) -> f32
    llvm.return %r : f32
  }
  llvm.func internal @__nv_sqrt(%x: f64) -> f64 attributes {passthrough = ["alwaysinline"]} {
    %r = llvm.intr.sqrt(%x) : (f64) -> f64
    llvm.return %r : f64
  }
}"#;

/// Replaces the `__nv_sqrtf`/`__nv_sqrt` declarations of every
/// `gpu.module` with [`CORRECTLY_ROUNDED_SQRT`]'s definitions.
fn correctly_rounded_sqrt(context: &Context, module: &Operation) -> Result<()> {
    let definitions = Module::parse(context, CORRECTLY_ROUNDED_SQRT).ok_or_else(|| {
        Error::Codegen("internal error: the sqrt definitions do not parse".into())
    })?;
    let definitions = definitions.as_operation();
    let functions = body_ops(&definitions);
    for gpu_module in body_ops(module) {
        let gpu_module = as_op(&gpu_module);
        if op_name(gpu_module) != GPU_MODULE {
            continue;
        }
        for declaration in body_ops(gpu_module) {
            let declaration = as_op(&declaration);
            let name = str_attr(declaration, "sym_name").unwrap_or_default();
            let Some(definition) = functions
                .iter()
                .find(|f| str_attr(as_op(f), "sym_name").as_deref() == Some(name.as_str()))
            else {
                continue;
            };
            if op_name(declaration) != "llvm.func" {
                continue;
            }
            // SAFETY: the declaration is a live op of the gpu.module's
            // block; the clone is a new op the block takes ownership of,
            // inserted before the declaration, which is then erased (no
            // handle to it is used afterwards: calls refer to it by name).
            unsafe {
                let block = mlir_sys::mlirOperationGetBlock(raw_op(declaration));
                let copy = mlir_sys::mlirOperationClone(raw_op(as_op(definition)));
                mlir_sys::mlirBlockInsertOwnedOperationBefore(block, raw_op(declaration), copy);
                mlir_sys::mlirOperationDestroy(raw_op(declaration));
            }
        }
    }
    Ok(())
}

/// `@root::@leaf` as its two names.
fn nested_symbol(attribute: Attribute) -> Option<(String, String)> {
    let raw = attribute.to_raw();
    // SAFETY: pure attribute queries; the type is checked first.
    unsafe {
        if !mlir_sys::mlirAttributeIsASymbolRef(raw)
            || mlir_sys::mlirSymbolRefAttrGetNumNestedReferences(raw) != 1
        {
            return None;
        }
        Some((
            owned(mlir_sys::mlirSymbolRefAttrGetRootReference(raw)),
            owned(mlir_sys::mlirSymbolRefAttrGetLeafReference(raw)),
        ))
    }
}

fn nested_symbol_attribute<'c>(context: &'c Context, root: &str, leaf: &str) -> Attribute<'c> {
    let leaf = melior::ir::attribute::FlatSymbolRefAttribute::new(context, leaf);
    let leaf = [leaf.to_raw()];
    let root = melior::StringRef::new(root);
    // SAFETY: the references are live attributes of `context`, and the
    // string is copied by MLIR.
    unsafe {
        Attribute::from_raw(mlir_sys::mlirSymbolRefAttrGet(
            context.to_raw(),
            root.to_raw(),
            1,
            leaf.as_ptr(),
        ))
    }
}

/// Per host kernel, its launches and temporaries.
type Launches = HashMap<String, (Vec<GpuLaunch>, Vec<u64>)>;

/// Reads the host functions of the outlined module; the ones that do
/// anything but launch (and compute what the launches take) are host
/// bound.
fn launches(module: &Operation, buffers: &HashMap<String, usize>) -> (Launches, Vec<String>) {
    let mut out: Launches = HashMap::new();
    let mut host_bound = Vec::new();
    for function in body_ops(module) {
        let function = as_op(&function);
        if op_name(function) != "func.func" {
            continue;
        }
        let name = str_attr(function, "sym_name").unwrap_or_default();
        let rank = buffers.get(&name).copied().unwrap_or(0);
        match HostFunction::read(function, rank) {
            Some(host) => {
                out.insert(name, (host.launches, host.scratch));
            }
            None => host_bound.push(name),
        }
    }
    (out, host_bound)
}

/// What the host part of one kernel passes to its launches.
struct HostFunction {
    /// The position of the rank parameter (after the buffers).
    rank: usize,
    /// Host values the launches can take, by value identity.
    values: HashMap<usize, LaunchParam>,
    launches: Vec<GpuLaunch>,
    /// Bytes of each temporary.
    scratch: Vec<u64>,
}

fn value_key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl HostFunction {
    /// `None` when the function does anything a launch list cannot replay.
    fn read(function: &Operation, rank: usize) -> Option<HostFunction> {
        let mut host = HostFunction {
            rank,
            values: HashMap::new(),
            launches: Vec::new(),
            scratch: Vec::new(),
        };
        for op in body_ops(function) {
            let op = as_op(&op);
            match op_name(op).as_str() {
                "arith.constant" => {
                    // A constant that is no plan parameter (a vector, say)
                    // only matters if a launch takes it.
                    if let Some(constant) = constant(op) {
                        host.values.insert(result_key(op)?, constant);
                    }
                }
                "memref.alloc" => {
                    let bytes = static_bytes(op.result(0).ok()?.r#type())?;
                    if op.operand_count() != 0 {
                        return None;
                    }
                    let index = host.scratch.len();
                    host.scratch.push(bytes);
                    host.values
                        .insert(result_key(op)?, LaunchParam::Scratch { index });
                }
                "memref.dealloc" | "func.return" => {}
                // `rank * k`: a slice offset.
                "arith.muli" => {
                    let factor = host.rank_factor(op)?;
                    host.values
                        .insert(result_key(op)?, LaunchParam::RankTimes { factor });
                }
                // Reshapes of dense memrefs are the same pointer.
                "memref.collapse_shape" | "memref.expand_shape" => {
                    if let Some(source) = host.param(op.operand(0).ok()?) {
                        host.values.insert(result_key(op)?, source);
                    }
                }
                LAUNCH_FUNC => {
                    let launch = host.launch(op)?;
                    host.launches.push(launch);
                }
                _ => return None,
            }
        }
        Some(host)
    }

    /// The launch parameter `value` is, if it is one.
    fn param(&self, value: Value) -> Option<LaunchParam> {
        if let Ok(argument) = BlockArgument::try_from(value) {
            let index = argument.argument_number();
            return Some(if index == self.rank {
                LaunchParam::Rank {}
            } else {
                LaunchParam::Buffer { index }
            });
        }
        self.values.get(&value_key(value)).cloned()
    }

    /// An i64 (or index) constant.
    fn integer(&self, value: Value) -> Option<i64> {
        match self.param(value)? {
            LaunchParam::Constant {
                dtype: DType::I64,
                value: Scalar::Integer(v),
            } => Some(v),
            _ => None,
        }
    }

    fn is_rank(&self, value: Value) -> bool {
        BlockArgument::try_from(value).is_ok_and(|a| a.argument_number() == self.rank)
    }

    /// `k` of `arith.muli` of the rank and a constant `k`.
    fn rank_factor(&self, op: &Operation) -> Option<i64> {
        let (a, b) = (op.operand(0).ok()?, op.operand(1).ok()?);
        if self.is_rank(a) {
            self.integer(b)
        } else if self.is_rank(b) {
            self.integer(a)
        } else {
            None
        }
    }

    /// A `gpu.launch_func` with constant sizes whose arguments are all
    /// parameters.
    fn launch(&self, op: &Operation) -> Option<GpuLaunch> {
        let (_, entry) = nested_symbol(op.attribute("kernel").ok()?)?;
        // Operand groups: async dependencies, grid x y z, block x y z,
        // cluster x y z, dynamic shared memory, kernel operands, async
        // object.
        let segments =
            DenseI32ArrayAttribute::try_from(op.attribute("operandSegmentSizes").ok()?).ok()?;
        let sizes: Vec<usize> = (0..segments.len())
            .map(|i| usize::try_from(segments.element(i).ok()?).ok())
            .collect::<Option<_>>()?;
        let [dependencies, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, arguments, _] = sizes[..] else {
            // Clusters and dynamic shared memory are not replayed.
            return None;
        };
        let size = |i: usize| -> Option<u64> {
            u64::try_from(self.integer(op.operand(dependencies + i).ok()?)?).ok()
        };
        let grid = [size(0)?, size(1)?, size(2)?];
        let block = [size(3)?, size(4)?, size(5)?];
        let first = dependencies + 6;
        let params = (first..first + arguments)
            .map(|i| self.param(op.operand(i).ok()?))
            .collect::<Option<_>>()?;
        Some(GpuLaunch {
            entry,
            grid,
            block,
            params,
        })
    }
}

fn result_key(op: &Operation) -> Option<usize> {
    Some(value_key(op.result(0).ok()?.into()))
}

/// An `arith.constant` of a scalar type the plan names (`index` as i64).
fn constant(op: &Operation) -> Option<LaunchParam> {
    let ty = op.result(0).ok()?.r#type();
    let dtype = element_dtype(ty)?;
    let attribute = op.attribute("value").ok()?;
    let value = if dtype.is_float() {
        Scalar::Float(FloatAttribute::try_from(attribute).ok()?.value())
    } else {
        let integer = IntegerAttribute::try_from(attribute).ok()?;
        // An i1 is 0 or 1, not a sign-extended -1.
        Scalar::Integer(if dtype == DType::I1 {
            integer.unsigned_value() as i64
        } else {
            integer.value()
        })
    };
    Some(LaunchParam::Constant { dtype, value })
}

/// Bytes of a dense `memref` of static shape in the default memory space.
fn static_bytes(ty: Type) -> Option<u64> {
    let memref = MemRefType::try_from(ty).ok()?;
    // SAFETY: a pure type query.
    let static_shape = unsafe { mlir_sys::mlirShapedTypeHasStaticShape(ty.to_raw()) };
    if !static_shape || memref.memory_space().is_some() || !identity_layout(&memref) {
        return None;
    }
    (0..memref.rank()).try_fold(scalar_bytes(memref.element())?, |bytes, d| {
        Some(bytes * memref.dim_size(d).ok()? as u64)
    })
}

fn identity_layout(memref: &MemRefType) -> bool {
    let layout = memref.layout();
    // SAFETY: pure attribute queries; the kind is checked first.
    unsafe {
        mlir_sys::mlirAttributeIsAAffineMap(layout.to_raw())
            && mlir_sys::mlirAffineMapIsIdentity(mlir_sys::mlirAffineMapAttrGetValue(
                layout.to_raw(),
            ))
    }
}

/// Bytes per element in device memory (`i1` and `i8` take one).
fn scalar_bytes(ty: Type) -> Option<u64> {
    let raw = ty.to_raw();
    // SAFETY: pure type queries.
    unsafe {
        if mlir_sys::mlirTypeIsAIndex(raw) || mlir_sys::mlirTypeIsAF64(raw) {
            return Some(8);
        }
        if mlir_sys::mlirTypeIsAF32(raw) {
            return Some(4);
        }
        if mlir_sys::mlirTypeIsAF16(raw) || mlir_sys::mlirTypeIsABF16(raw) {
            return Some(2);
        }
    }
    let integer = IntegerType::try_from(ty).ok().filter(|i| i.is_signless())?;
    match integer.width() {
        64 => Some(8),
        32 => Some(4),
        16 => Some(2),
        8 | 1 => Some(1),
        _ => None,
    }
}

/// The PTX of every `gpu.binary` object, in module order.
fn assemblies(module: &Operation) -> Vec<String> {
    let mut out = Vec::new();
    for binary in body_ops(module) {
        let binary = as_op(&binary);
        if op_name(binary) != "gpu.binary" {
            continue;
        }
        let Ok(objects) = binary.attribute("objects") else {
            continue;
        };
        // Raw queries: melior 0.22's `ArrayAttribute::try_from` checks for
        // a dense i64 array instead of an array.
        // SAFETY: pure attribute queries; each kind is checked first.
        unsafe {
            let objects = objects.to_raw();
            if !mlir_sys::mlirAttributeIsAArray(objects) {
                continue;
            }
            for i in 0..mlir_sys::mlirArrayAttrGetNumElements(objects) {
                let object = mlir_sys::mlirArrayAttrGetElement(objects, i);
                if mlir_sys::mlirAttributeIsAGPUObjectAttr(object) {
                    out.push(owned(mlir_sys::mlirGPUObjectAttrGetObject(object)));
                }
            }
        }
    }
    out
}

/// Joins the PTX modules into one (one header, every entry).
fn merge(assemblies: &[String]) -> Result<Option<String>> {
    let mut header = String::new();
    let mut bodies = String::new();
    for (i, ptx) in assemblies.iter().enumerate() {
        // The assembly is NUL-terminated for the CUDA driver; one file has one end.
        let ptx = ptx.trim_end_matches('\0');
        let (head, body) = match ptx.find(".address_size") {
            Some(at) => {
                let line_end = at + ptx[at..].find('\n').unwrap_or(ptx.len() - at);
                (&ptx[..line_end], &ptx[line_end..])
            }
            None => ("", ptx),
        };
        if i == 0 {
            header = head.to_string();
        }
        bodies.push_str(body);
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
                "a kernel calls the libdevice function {name}, which coco's built-in PTX does not \
                 define: link libdevice with --cuda-path (a CUDA toolkit, or the nvidia-cuda-nvcc-cu12 \
                 wheel's nvidia/cuda_nvcc folder); without it coco defines abs, ceil and floor (f32, \
                 f64), __nv_expf and __nv_tanhf"
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

/// The fallback when no libdevice is linked (no `--cuda-path`, no
/// `CUDA_HOME`): PTX definitions of the libdevice functions kernels call
/// (`convert-gpu-to-nvvm` calls libdevice for every math op), exact where
/// PTX has the instruction (abs, ceil, floor), documented approximations for exp and
/// tanh (docs/bundle.md, "GPU math"). With libdevice linked, nothing is
/// left to define.
fn libdevice_shim(name: &str) -> Option<&'static str> {
    Some(match name {
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
        "__nv_ceilf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_ceilf(\n\t.param .b32 __nv_ceilf_param_0\n)\n{\n",
            "\t.reg .f32 \t%f<3>;\n\tld.param.f32 \t%f1, [__nv_ceilf_param_0];\n",
            "\tcvt.rpi.f32.f32 \t%f2, %f1;\n\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n}\n\n"
        ),
        "__nv_floorf" => concat!(
            ".func  (.param .b32 func_retval0) __nv_floorf(\n\t.param .b32 __nv_floorf_param_0\n)\n{\n",
            "\t.reg .f32 \t%f<3>;\n\tld.param.f32 \t%f1, [__nv_floorf_param_0];\n",
            "\tcvt.rmi.f32.f32 \t%f2, %f1;\n\tst.param.f32 \t[func_retval0+0], %f2;\n\tret;\n}\n\n"
        ),
        "__nv_ceil" => concat!(
            ".func  (.param .b64 func_retval0) __nv_ceil(\n\t.param .b64 __nv_ceil_param_0\n)\n{\n",
            "\t.reg .f64 \t%fd<3>;\n\tld.param.f64 \t%fd1, [__nv_ceil_param_0];\n",
            "\tcvt.rpi.f64.f64 \t%fd2, %fd1;\n\tst.param.f64 \t[func_retval0+0], %fd2;\n\tret;\n}\n\n"
        ),
        "__nv_floor" => concat!(
            ".func  (.param .b64 func_retval0) __nv_floor(\n\t.param .b64 __nv_floor_param_0\n)\n{\n",
            "\t.reg .f64 \t%fd<3>;\n\tld.param.f64 \t%fd1, [__nv_floor_param_0];\n",
            "\tcvt.rmi.f64.f64 \t%fd2, %fd1;\n\tst.param.f64 \t[func_retval0+0], %fd2;\n\tret;\n}\n\n"
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
