//! Runs mlir-tblgen on the dialects' ODS files and compiles the generated C++
//! together with the registration shim (`cpp/`). Also generates the dialect
//! reference docs, which a filetest compares with the committed `docs/dialects`.

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

struct Dialect {
    /// Dialect name as in ODS (`-dialect=`).
    name: &'static str,
    /// File prefix under td/<name>/.
    prefix: &'static str,
    /// Generators beyond dialect and ops: (flag, output suffix).
    extra: &'static [(&'static str, &'static str)],
}

const DIALECTS: &[Dialect] = &[
    Dialect {
        name: "coco",
        prefix: "Coco",
        extra: &[
            ("-gen-attrdef-decls", "Attrs.h.inc"),
            ("-gen-attrdef-defs", "Attrs.cpp.inc"),
            ("-gen-enum-decls", "Enums.h.inc"),
            ("-gen-enum-defs", "Enums.cpp.inc"),
        ],
    },
    Dialect {
        name: "df",
        prefix: "Df",
        extra: &[
            ("-gen-typedef-decls", "Types.h.inc"),
            ("-gen-typedef-defs", "Types.cpp.inc"),
            ("-gen-enum-decls", "Enums.h.inc"),
            ("-gen-enum-defs", "Enums.cpp.inc"),
        ],
    },
    Dialect {
        name: "bigtest",
        prefix: "Bigtest",
        extra: &[
            ("-gen-enum-decls", "Enums.h.inc"),
            ("-gen-enum-defs", "Enums.cpp.inc"),
        ],
    },
];

fn main() {
    let prefix = PathBuf::from(
        env::var("TABLEGEN_190_PREFIX")
            .or_else(|_| env::var("MLIR_SYS_190_PREFIX"))
            .unwrap_or_else(|_| "/usr/lib/llvm-19".into()),
    );
    let tblgen = prefix.join("bin/mlir-tblgen");
    let include = prefix.join("include");
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));

    println!("cargo:rerun-if-changed=td");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=TABLEGEN_190_PREFIX");

    for dialect in DIALECTS {
        let td_dir = manifest.join("td").join(dialect.name);
        let ops_td = td_dir.join(format!("{}Ops.td", dialect.prefix));
        let mut generators: Vec<(String, String)> = vec![
            (
                format!("-gen-dialect-decls -dialect={}", dialect.name),
                "Dialect.h.inc".into(),
            ),
            (
                format!("-gen-dialect-defs -dialect={}", dialect.name),
                "Dialect.cpp.inc".into(),
            ),
            ("-gen-op-decls".into(), "Ops.h.inc".into()),
            ("-gen-op-defs".into(), "Ops.cpp.inc".into()),
            (
                format!("-gen-dialect-doc -dialect={}", dialect.name),
                "Doc.md".into(),
            ),
        ];
        for (flag, suffix) in dialect.extra {
            let flag = match *flag {
                "-gen-attrdef-decls" | "-gen-attrdef-defs" => {
                    format!("{flag} -attrdefs-dialect={}", dialect.name)
                }
                "-gen-typedef-decls" | "-gen-typedef-defs" => {
                    format!("{flag} -typedefs-dialect={}", dialect.name)
                }
                _ => flag.to_string(),
            };
            generators.push((flag, suffix.to_string()));
        }
        for (flags, suffix) in generators {
            let output = out.join(format!("{}{}", dialect.prefix, suffix));
            run_tblgen(&tblgen, &flags, &ops_td, &td_dir, &include, &output);
        }
    }

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fPIC")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-comment")
        .warnings(false)
        .include(&include)
        .include(&out)
        .include(manifest.join("cpp"));
    for file in ["Coco.cpp", "Df.cpp", "Bigtest.cpp", "CAPI.cpp"] {
        build.file(manifest.join("cpp").join(file));
    }
    build.compile("coco_dialects_cpp");
}

fn run_tblgen(
    tblgen: &Path,
    flags: &str,
    input: &Path,
    td_dir: &Path,
    include: &Path,
    output: &Path,
) {
    let status = Command::new(tblgen)
        .args(flags.split(' '))
        .arg(input)
        .arg("-I")
        .arg(td_dir)
        .arg("-I")
        .arg(include)
        .arg("-o")
        .arg(output)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}); run scripts/setup.sh to install mlir-19-tools",
                tblgen.display()
            )
        });
    assert!(
        status.success(),
        "mlir-tblgen {flags} {} failed",
        input.display()
    );
}
